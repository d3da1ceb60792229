// Text outputs written so that a failure never leaves a half-written or empty file under the requested name:
// the text goes to `<target>.tmp-<pid>` beside the target, is checked (stream state after flush and close,
// fsync), and is renamed over the target only when complete. On any failure, a full disk or a file-size
// limit included, the temporary file is removed and the error names the target and the system's reason.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace fleetwatt::core {

/// Writes the file `target` through `write`. A target that cannot be created throws ConfigError at `field`
/// (the flag or key that named it); a write that fails throws std::runtime_error; either way nothing is left
/// behind. Exceptions from `write` itself also remove the temporary file and propagate.
void write_text_output(const std::filesystem::path& target, const std::string& field,
                       const std::function<void(std::ostream&)>& write);

/// The temporary name used for `target`: beside it, with this process's id (two processes writing the same
/// target never share a temporary file).
[[nodiscard]] std::filesystem::path temporary_beside(const std::filesystem::path& target);

}  // namespace fleetwatt::core
