// Writing a whole HDF5 file under a temporary name: see hdf5_commit.hpp.
#include "hdf5_commit.hpp"

#include <fmt/format.h>

#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/results/hdf5/hdf5_error.hpp"

namespace fleetwatt::results {

void close_hdf5_once(std::unique_ptr<H5::H5File>& file) {
  if (!file) return;
  std::unique_ptr<H5::H5File> f = std::move(file);
  try {
    f->close();
  } catch (...) {
    (void)f.release();
    note_abandoned_hdf5_file();
    throw;
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
    // Whatever fails (an HDF5 exception is not a std::exception), the file is closed before the temporary
    // goes, so that nothing of it is left open for HDF5's exit handler.
    auto close_after_failure = [&file] {
      try {
        close_hdf5_once(file);
      } catch (...) {
      }
    };
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
