// The one way an HDF5 file is written whole (a comparison, a sweep's or region's index): under a temporary
// name, HDF5's error printing silenced, closed at most once, the temporary removed on any failure, renamed
// over the target when complete. A failure is a ResultFileError naming the target and the system's reason.
#pragma once

#include <H5Cpp.h>

#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <string>

namespace fleetwatt::results {

/// While HDF5 is called: after a failed write (a full disk) HDF5's C++ destructors print a line each to
/// std::cerr as the objects unwind; the error itself is reported once, by the command. Declared first in a
/// scope so that it is restored last, after the scope's HDF5 objects are gone.
struct QuietStderr {
  std::streambuf* saved = std::cerr.rdbuf(nullptr);
  QuietStderr() = default;
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;
  ~QuietStderr() {
    std::cerr.rdbuf(saved);
    std::cerr.clear();
  }
};

/// Points the descriptor under `file` at /dev/null, for a file being thrown away, so that what HDF5 still
/// writes for it (datasets flushing as they close) goes nowhere and fails no more.
void redirect_hdf5_writes(H5::H5File& file) noexcept;

/// Throws `file` away without closing it: its writes redirected, its handle let go
/// (note_abandoned_hdf5_file). A close after a failed write fails too, and HDF5 1.10 leaves a file whose
/// close failed half torn down: its exit handler (H5close) then crashes closing it again, at the end of the
/// command or of the Python interpreter. A file never closed is closed once, by that handler, into
/// /dev/null; the command line skips the handler altogether.
void discard_hdf5_file(std::unique_ptr<H5::H5File>& file) noexcept;

/// Closes `file` once and lets it go. It is flushed first: when that fails (a full disk), the file is
/// discarded (discard_hdf5_file) and the flush's exception goes on. Should the close itself fail, the handle
/// is abandoned (a second close would crash) and its exception goes on.
void close_hdf5_once(std::unique_ptr<H5::H5File>& file);

/// For a file given up after a failure: thrown away (discard_hdf5_file) when a write has failed (a full
/// disk: closing it would fail and leave it half torn down), else closed as close_hdf5_once does (an
/// interrupted run), never throwing.
void give_up_hdf5_file(std::unique_ptr<H5::H5File>& file) noexcept;

/// Writes `target` through `body` (given the open file) as described above; `what` names the file in
/// messages ("comparison", "sweep index").
void write_hdf5_file(const std::filesystem::path& target, const std::string& what,
                     const std::function<void(H5::H5File&)>& body);

}  // namespace fleetwatt::results
