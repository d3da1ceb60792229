// The output lock (see output_lock.hpp). flock() locks belong to the open file, so they end with the
// process however it ends (SIGKILL included) and a lock file left behind holds nothing. Removing the file
// at the end races with a writer that opened it just before: every writer checks, once it holds the lock,
// that the file it locked is still the one at the path, and starts again otherwise.
#include "output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::tools {

namespace fs = std::filesystem;

namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "an unknown host";
  return name;
}

// What the holder wrote ("pid N host H"); a holder that has just taken the lock may not have written yet.
std::string holder_of(const fs::path& file) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char buf[512] = {};
      const ssize_t n = ::read(fd, buf, sizeof buf - 1);
      ::close(fd);
      std::string text(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
      while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
      if (!text.empty()) return text;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return "a process that did not say who it is";
}

bool same_file(int fd, const fs::path& path) {
  struct stat held {};
  struct stat named {};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
         held.st_ino == named.st_ino;
}

}  // namespace

fs::path OutputLock::file_of(const fs::path& target) {
  fs::path f = target;
  f += ".lock";
  return f;
}

OutputLock::OutputLock(const fs::path& target, const std::string& flag) : file_(file_of(target)) {
  for (;;) {
    fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw core::ConfigError({}, flag,
                              fmt::format("{}: cannot create the lock file {} ({})", target.string(),
                                          file_.string(), std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd_);
      fd_ = -1;
      if (err != EWOULDBLOCK)
        throw core::ConfigError(
            {}, flag,
            fmt::format("{}: cannot lock {} ({})", target.string(), file_.string(), std::strerror(err)));
      throw core::ConfigError(
          {}, flag,
          fmt::format("{}: another fleetwatt is writing it ({}; lock {}); wait for it to end or give "
                      "another {}",
                      target.string(), holder_of(file_), file_.string(), flag));
    }
    if (same_file(fd_, file_)) break;
    // The holder before us removed the file between our open and our lock: lock the new one.
    ::close(fd_);
    fd_ = -1;
  }
  const std::string me = fmt::format("pid {} host {}\n", static_cast<long>(::getpid()), host_name());
  // Should this fail, the lock still holds; a refused writer then says it cannot name the holder.
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const auto n = ::write(fd_, me.data(), me.size());
  }
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(file_.c_str());
  ::close(fd_);
}

}  // namespace fleetwatt::tools
