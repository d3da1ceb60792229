// HDF5's failures made into messages a user can act on. HDF5's C++ exceptions do not derive from
// std::exception and carry no file name or system error, and by default the library prints its whole error
// stack on stderr. Every writer and reader here silences that printing on its thread and records, instead,
// the system's reason of the last failed read or write (the errno text HDF5 keeps in its error stack), so a
// full disk is reported as "r.h5: cannot write: No space left on device", once.
#pragma once

#include <exception>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace fleetwatt::results {

/// A result file that cannot be written (a full disk, a file-size limit) or read (not an HDF5 file,
/// damaged, truncated): the message names the file and the reason.
class ResultFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The system call HDF5 saw fail on this thread, from its error stack.
struct Hdf5IoFailure {
  std::string file;    ///< the file HDF5 was writing or reading (a temporary's name turned into its target)
  std::string reason;  ///< the system's text of errno ("No space left on device")
  bool write = true;   ///< a write (false: a read)
};

/// Stops HDF5 printing its error stack on the calling thread (HDF5 keeps that setting per thread) and
/// records the system's reason of each failed read or write there instead; forgets an earlier one.
void quiet_hdf5_errors();
/// The last failed read or write recorded (on any thread) since quiet_hdf5_errors(), if any.
[[nodiscard]] std::optional<Hdf5IoFailure> last_hdf5_io_failure();

/// Marks that a file's close failed and its handle was abandoned: HDF5 1.10 leaves such a file half torn
/// down, and its exit handler (H5close) would crash closing it again, so the process must end without
/// running exit handlers (end_before_hdf5_exit_handler).
void note_abandoned_hdf5_file();
[[nodiscard]] bool hdf5_file_abandoned();
/// Ends the process with `status` after flushing the C and C++ standard streams, without running exit
/// handlers: HDF5's (H5close) would crash on an abandoned file. The command line calls it after reporting
/// such a failure, the Python module from its exit hook.
[[noreturn]] void end_before_hdf5_exit_handler(int status);

/// "FILE: cannot write the WHAT: REASON; nothing was written" for an HDF5 failure while writing `target`
/// (its temporary file already removed); REASON is the system's when HDF5 recorded one, else HDF5's
/// `detail`.
[[nodiscard]] std::string hdf5_write_failure(const std::filesystem::path& target, const std::string& what,
                                             const std::string& detail);

/// A message for `e` when it holds an H5::Exception (a write failure with its file and the system's reason,
/// or a read of a damaged file); nothing otherwise.
[[nodiscard]] std::optional<std::string> hdf5_error_text(const std::exception_ptr& e);

}  // namespace fleetwatt::results
