// Writing a whole HDF5 file under a temporary name: see hdf5_commit.hpp.
#include "hdf5_commit.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <exception>

#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/results/hdf5/hdf5_error.hpp"

namespace fleetwatt::results {

void redirect_hdf5_writes(H5::H5File& file) noexcept {
  void* handle = nullptr;
  if (H5Fget_vfd_handle(file.getId(), H5P_DEFAULT, &handle) < 0 || handle == nullptr) return;
  const int fd = *static_cast<int*>(handle);  // the sec2 driver's descriptor
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) return;
  (void)::dup2(null, fd);
  ::close(null);
}

void discard_hdf5_file(std::unique_ptr<H5::H5File>& file) noexcept {
  if (!file) return;
  redirect_hdf5_writes(*file);
  (void)file.release();
  note_abandoned_hdf5_file();
}

void close_hdf5_once(std::unique_ptr<H5::H5File>& file) {
  if (!file) return;
  try {
    file->flush(H5F_SCOPE_LOCAL);
  } catch (...) {
    discard_hdf5_file(file);
    throw;
  }
  std::unique_ptr<H5::H5File> f = std::move(file);
  try {
    f->close();
  } catch (...) {
    (void)f.release();
    note_abandoned_hdf5_file();
    throw;
  }
}

void give_up_hdf5_file(std::unique_ptr<H5::H5File>& file) noexcept {
  const auto failure = last_hdf5_io_failure();
  if (failure && failure->write) {
    discard_hdf5_file(file);
    return;
  }
  try {
    close_hdf5_once(file);
  } catch (...) {
  }
}

void write_hdf5_file(const std::filesystem::path& target, const std::string& what,
                     const std::function<void(H5::H5File&)>& body) {
  const auto temp = core::temporary_beside(target);  // with the process id: two writers never share it
  const core::LiveTemporary live(temp);              // removed if a signal ends the process mid-write
  auto discard = [&temp] {
    std::error_code ec;
    std::filesystem::remove(temp, ec);
  };
  {
    const QuietStderr quiet;
    quiet_hdf5_errors();
    std::unique_ptr<H5::H5File> file;
    // Whatever fails (an HDF5 exception is not a std::exception), the file is closed, or thrown away
    // after a failed write (give_up_hdf5_file), before the temporary goes.
    auto close_after_failure = [&file] { give_up_hdf5_file(file); };
    try {
      file = std::make_unique<H5::H5File>(temp.string(), H5F_ACC_TRUNC);
      body(*file);
      close_hdf5_once(file);
    } catch (const H5::Exception& e) {
      close_after_failure();
      discard();
      throw ResultFileError(hdf5_write_failure(target, what, e.getFuncName() + " failed"));
    } catch (...) {
      close_after_failure();
      discard();
      throw;
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    discard();
    throw ResultFileError(
        fmt::format("{}: cannot move the {} into place: {}", target.string(), what, ec.message()));
  }
}

}  // namespace fleetwatt::results
