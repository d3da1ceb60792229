// HDF5's error stack turned into one message: the auto handler that replaces HDF5's printing records the
// system's reason of a failed read or write, which the writers and the command line report with the file.
#include "fleetwatt/results/hdf5/hdf5_error.hpp"

#include <H5Cpp.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <regex>

namespace fleetwatt::results {

namespace {

// For the process, not per thread: the Python binding's worker thread writes, and the caller's thread
// makes the message of the exception it passes on.
std::mutex g_mutex;
std::optional<Hdf5IoFailure> g_failure;
std::atomic<bool> g_abandoned{false};

/// The text between `key` = ' and the next ' in an HDF5 error description, or "".
std::string quoted(const std::string& desc, const std::string& key) {
  const auto at = desc.find(key + " = '");
  if (at == std::string::npos) return {};
  const auto from = at + key.size() + 4;
  const auto to = desc.find('\'', from);
  return to == std::string::npos ? std::string() : desc.substr(from, to - from);
}

herr_t record_io_failure(unsigned, const H5E_error2_t* e, void*) {
  if (e == nullptr || e->desc == nullptr) return 0;
  const std::string desc = e->desc;
  // The sec2 driver's failures: "file write failed: time = ..., filename = '...', ..., errno = 28, error
  // message = 'No space left on device', ...".
  if (desc.find("errno = ") == std::string::npos) return 0;
  Hdf5IoFailure f;
  f.file = quoted(desc, "filename");
  f.reason = quoted(desc, "error message");
  // A failed read or open; any other failed system call (a write, an extension) fails a write.
  f.write = desc.find("read failed") == std::string::npos && desc.find("unable to open") == std::string::npos;
  // The writers write under TARGET.tmp-PID (core::temporary_beside): the user knows the target.
  static const std::regex temporary(R"(\.tmp-[0-9]+$)");
  f.file = std::regex_replace(f.file, temporary, "");
  if (f.reason.empty()) return 0;
  // The first failure is the cause; later ones (closing what failed) follow from it.
  const std::lock_guard lock(g_mutex);
  if (!g_failure) g_failure = std::move(f);
  return 0;
}

herr_t on_error(hid_t stack, void*) {
  H5Ewalk2(stack, H5E_WALK_DOWNWARD, record_io_failure, nullptr);
  return 0;
}

}  // namespace

void quiet_hdf5_errors() {
  {
    const std::lock_guard lock(g_mutex);
    g_failure.reset();
  }
  H5Eset_auto2(H5E_DEFAULT, on_error, nullptr);
}

std::optional<Hdf5IoFailure> last_hdf5_io_failure() {
  const std::lock_guard lock(g_mutex);
  return g_failure;
}

void note_abandoned_hdf5_file() {
  g_abandoned.store(true);
}

bool hdf5_file_abandoned() {
  return g_abandoned.load();
}

void end_before_hdf5_exit_handler(int status) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(status);
}

std::string hdf5_write_failure(const std::filesystem::path& target, const std::string& what,
                               const std::string& detail) {
  const auto f = last_hdf5_io_failure();
  return fmt::format("{}: cannot write the {}: {}; nothing was written", target.string(), what,
                     f ? f->reason : detail);
}

std::optional<std::string> hdf5_error_text(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const H5::Exception& h5) {
    if (const auto f = last_hdf5_io_failure())
      return fmt::format("{}: cannot {}: {}{}", f->file, f->write ? "write" : "read", f->reason,
                         f->write ? "; nothing was written" : "");
    // No system call failed: HDF5 itself refused what it read (a damaged or truncated file).
    return fmt::format("HDF5 could not read a file: not an HDF5 file or damaged ({}: {})", h5.getFuncName(),
                       h5.getDetailMsg());
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace fleetwatt::results
