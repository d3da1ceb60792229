// An advisory lock on a result that several processes could write at once (a sweep's index and members, a
// region's file and sites): `OUT.lock` beside it, flock()ed for the writer's whole run and holding its
// process id and host, so that a second writer is refused at once with a message naming the holder instead
// of mixing its members into the first one's index.
#pragma once

#include <filesystem>
#include <string>

namespace fleetwatt::tools {

class OutputLock {
 public:
  /// Takes the lock on `target` (the file `target`.lock) or throws ConfigError at `flag` naming the holder
  /// (exit 2). A lock file left by a killed process holds no lock: it is taken over.
  OutputLock(const std::filesystem::path& target, const std::string& flag);
  /// Removes the lock file, then releases the lock.
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  /// The lock file of `target`.
  [[nodiscard]] static std::filesystem::path file_of(const std::filesystem::path& target);

 private:
  std::filesystem::path file_;
  int fd_ = -1;
};

}  // namespace fleetwatt::tools
