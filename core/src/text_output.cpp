// Write-to-temporary, check, fsync, rename: the one way text outputs reach their final name.
#include "fleetwatt/core/text_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::core {

namespace fs = std::filesystem;

fs::path temporary_beside(const fs::path& target) {
  fs::path temp = target;
  temp += fmt::format(".tmp-{}", static_cast<long>(::getpid()));
  return temp;
}

namespace {

// The stream's failure as the system saw it (ENOSPC, EFBIG, EIO), or a generic phrase when errno is unset.
std::string reason() {
  return errno != 0 ? std::strerror(errno) : std::string("write failed");
}

// Data must be on disk before the rename makes it the target: otherwise a crash right after could leave
// an empty file under the final name.
bool sync_file(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

void write_text_output(const fs::path& target, const std::string& field,
                       const std::function<void(std::ostream&)>& write) {
  const fs::path temp = temporary_beside(target);
  auto discard = [&temp] {
    std::error_code ec;
    fs::remove(temp, ec);
  };
  std::ofstream out(temp, std::ios::binary);
  if (!out) {
    const std::string why = reason();
    discard();
    throw ConfigError({target.string(), 0, 0}, field, fmt::format("cannot be written ({})", why));
  }
  try {
    errno = 0;
    write(out);
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("{}: {}; nothing was written", target.string(), reason()));
    out.close();
    if (!out || !sync_file(temp))
      throw std::runtime_error(fmt::format("{}: {}; nothing was written", target.string(), reason()));
    fs::rename(temp, target);
  } catch (...) {
    discard();
    throw;
  }
}

}  // namespace fleetwatt::core
