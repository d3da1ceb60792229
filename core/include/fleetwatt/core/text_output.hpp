// Text outputs written so that a failure never leaves a half-written or empty file under the requested name:
// the text goes to `<target>.tmp-<pid>` beside the target, is checked (stream state after flush and close,
// fsync), and is renamed over the target only when complete. On any failure, a full disk or a file-size
// limit included, the temporary file is removed and the error names the target and the system's reason.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace fleetwatt::core {

/// Writes the file `target` through `write`. A target that cannot be created throws ConfigError at `field`
/// (the flag or key that named it); a write that fails throws std::runtime_error; either way nothing is left
/// behind. Exceptions from `write` itself also remove the temporary file and propagate.
void write_text_output(const std::filesystem::path& target, const std::string& field,
                       const std::function<void(std::ostream&)>& write);

/// The temporary name used for `target`: beside it, with this process's id (two processes writing the same
/// target never share a temporary file).
[[nodiscard]] std::filesystem::path temporary_beside(const std::filesystem::path& target);

/// A temporary output being written, known to remove_live_temporaries() for as long as the object lives:
/// a process ended by a signal removes what it was writing instead of leaving it behind.
class LiveTemporary {
 public:
  explicit LiveTemporary(const std::filesystem::path& temp) noexcept;
  ~LiveTemporary();
  LiveTemporary(const LiveTemporary&) = delete;
  LiveTemporary& operator=(const LiveTemporary&) = delete;

 private:
  int slot_ = -1;  ///< -1: not registered (more live temporaries than slots, or a path too long)
};

/// Removes (unlinks) every live temporary output. Async-signal-safe: for a SIGINT/SIGTERM handler that ends
/// the process with _exit.
void remove_live_temporaries() noexcept;

/// Temporary files `<target>.tmp-<pid>` beside `target` left by processes that no longer run (killed with
/// SIGKILL or by a power cut mid-write): the commands name them in a warning before writing the target.
[[nodiscard]] std::vector<std::filesystem::path> stale_temporaries(const std::filesystem::path& target);

}  // namespace fleetwatt::core
