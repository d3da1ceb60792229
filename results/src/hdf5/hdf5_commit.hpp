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

/// Closes `file` once and lets it go. When the close fails (a full disk while flushing), HDF5 1.10 leaves
/// the file half torn down and a second close (H5File's destructor would try one) crashes: the handle is
/// abandoned (note_abandoned_hdf5_file) and the exception goes on.
void close_hdf5_once(std::unique_ptr<H5::H5File>& file);

/// Writes `target` through `body` (given the open file) as described above; `what` names the file in
/// messages ("comparison", "sweep index").
void write_hdf5_file(const std::filesystem::path& target, const std::string& what,
                     const std::function<void(H5::H5File&)>& body);

}  // namespace fleetwatt::results
