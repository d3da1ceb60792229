// Write-to-temporary, check, fsync, rename: the one way text outputs reach their final name.
#include "fleetwatt/core/text_output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::core {

namespace fs = std::filesystem;

namespace {

// Slots of live temporaries, read by a signal handler: fixed storage, lock-free flags, no allocation.
constexpr int kSlots = 16;
constexpr std::size_t kPathMax = 4096;
struct Slot {
  std::atomic<bool> taken{false};  ///< owned by a LiveTemporary
  std::atomic<bool> ready{false};  ///< the path is written and may be unlinked
  char path[kPathMax];
};
Slot g_slots[kSlots];

}  // namespace

LiveTemporary::LiveTemporary(const fs::path& temp) noexcept {
  const std::string& p = temp.native();
  if (p.size() + 1 > kPathMax) return;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_slots[i].taken.compare_exchange_strong(expected, true)) continue;
    std::memcpy(g_slots[i].path, p.c_str(), p.size() + 1);
    g_slots[i].ready.store(true);
    slot_ = i;
    return;
  }
}

LiveTemporary::~LiveTemporary() {
  if (slot_ < 0) return;
  g_slots[slot_].ready.store(false);
  g_slots[slot_].taken.store(false);
}

void remove_live_temporaries() noexcept {
  for (auto& slot : g_slots)
    if (slot.ready.load()) ::unlink(slot.path);
}

std::vector<fs::path> stale_temporaries(const fs::path& target) {
  std::vector<fs::path> stale;
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string prefix = target.filename().string() + ".tmp-";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    const auto pid = static_cast<pid_t>(std::stol(digits));
    // kill(pid, 0) probes without signalling: ESRCH says no such process (EPERM: alive, another user's).
    if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) stale.push_back(it->path());
  }
  return stale;
}

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
  const LiveTemporary live(temp);
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
