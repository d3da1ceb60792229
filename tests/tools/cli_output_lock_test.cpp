// Writers that cannot collide: a sweep or a region run holds a lock on its output (OUT.lock) for its whole
// run, so a second writer into the same -o is refused at once (exit 2, the holder's pid named) and the
// first one's index and members stay as they were; member files left half-written by a killed sweep are
// removed, with a warning, when the sweep is run again.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "sweep_test_support.hpp"

namespace fs = std::filesystem;
using namespace fleetwatt::test;

namespace {

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The lock as a running sweep holds it: flock()ed, with the holder's line in it.
class HeldLock {
 public:
  HeldLock(const fs::path& file, const std::string& holder) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT, 0644);
    REQUIRE(fd_ >= 0);
    REQUIRE(::flock(fd_, LOCK_EX | LOCK_NB) == 0);
    REQUIRE(::write(fd_, holder.data(), holder.size()) == static_cast<ssize_t>(holder.size()));
  }
  ~HeldLock() { ::close(fd_); }
  HeldLock(const HeldLock&) = delete;
  HeldLock& operator=(const HeldLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

TEST_CASE("a second sweep into an output being written is refused at once, naming the holder",
          "[cli][sweep][lock]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kSweepScenario);
  const auto index = dir / "sweep.h5";
  const auto members = dir / "sweep.h5.members";
  REQUIRE(
      run_command(fleetwatt_command() + " sweep -q " + s.string() + " --grid seed=1..2 -o " + index.string())
          .exit_code == 0);
  CHECK_FALSE(fs::exists(dir / "sweep.h5.lock"));  // released and removed at the end
  const std::string index_bytes = bytes_of(index);
  const std::string m0 = bytes_of(members / "m000000.h5");
  const std::string m1 = bytes_of(members / "m000001.h5");
  const std::string holder = "pid " + std::to_string(::getpid()) + " host test-host\n";
  {
    const HeldLock held(dir / "sweep.h5.lock", holder);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = run_command(fleetwatt_command() + " sweep -q " + s.string() + " --grid seed=11..12 -o " +
                         index.string());
    CHECK(r.exit_code == 2);
    CHECK(r.err == "fleetwatt: error: -o: " + index.string() + ": another fleetwatt is writing it (pid " +
                       std::to_string(::getpid()) + " host test-host; lock " + index.string() +
                       ".lock); wait for it to end or give another -o\n");
    CHECK(seconds_since(t0) < 5.0);  // refused before any member runs
    // The first sweep's index and members are untouched, and nothing of the second is there.
    CHECK(bytes_of(index) == index_bytes);
    CHECK(bytes_of(members / "m000000.h5") == m0);
    CHECK(bytes_of(members / "m000001.h5") == m1);
    // --resume is a writer too.
    auto resumed = run_command(fleetwatt_command() + " sweep -q " + s.string() +
                               " --grid seed=1..2 --resume -o " + index.string());
    CHECK(resumed.exit_code == 2);
    CHECK(resumed.err.find("(pid " + std::to_string(::getpid()) + " host test-host;") != std::string::npos);
  }
  // The holder gone (its lock file left behind, as after SIGKILL), the next sweep takes the lock over.
  REQUIRE(fs::exists(dir / "sweep.h5.lock"));
  auto again = run_command(fleetwatt_command() + " sweep -q " + s.string() + " --grid seed=11..12 -o " +
                           index.string());
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK_FALSE(fs::exists(dir / "sweep.h5.lock"));
  CHECK(bytes_of(members / "m000000.h5") != m0);  // now seed 11's
}

TEST_CASE("a running sweep holds its lock: a sweep started meanwhile is refused with the first's pid",
          "[cli][sweep][lock]") {
  TempDir dir;
  // Long enough to be still running when the second starts (seconds per member, 40 members).
  const auto s = dir.write("s.toml", small_vit_scenario("pue = 1.2", 30 * 86400, 40, 10));
  const auto index = dir / "sweep.h5";
  auto bg = run_command(fleetwatt_command() + " sweep -q " + s.string() + " --grid seed=1..40 -o " +
                        index.string() + " >/dev/null 2>" + (dir / "first.err").string() + " & echo $!");
  REQUIRE(bg.exit_code == 0);
  const pid_t first = static_cast<pid_t>(std::stol(bg.out));
  // Its lock file names it once it holds the lock.
  const auto t0 = std::chrono::steady_clock::now();
  std::string text;
  while (seconds_since(t0) < 20.0 && text.find('\n') == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    text = bytes_of(dir / "sweep.h5.lock");
  }
  CHECK(text.rfind("pid " + std::to_string(first) + " host ", 0) == 0);
  auto second = run_command(fleetwatt_command() + " sweep -q " + s.string() + " --grid seed=41..42 -o " +
                            index.string());
  CHECK(second.exit_code == 2);
  CHECK(second.err.find("another fleetwatt is writing it (pid " + std::to_string(first) + " host ") !=
        std::string::npos);
  // The first stops at Ctrl-C, releasing and removing its lock; its members are its own seeds'.
  ::kill(first, SIGINT);
  const auto t1 = std::chrono::steady_clock::now();
  while (seconds_since(t1) < 20.0 && ::kill(first, 0) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(::kill(first, 0) != 0);
  CHECK_FALSE(fs::exists(dir / "sweep.h5.lock"));
  const std::string plan = bytes_of(dir / "sweep.h5.members" / "plan.txt");
  CHECK(plan.find("member m000039 seed=40\n") != std::string::npos);
  CHECK(plan.find("seed=41") == std::string::npos);
}

TEST_CASE("a killed sweep's half-written member files are removed, with a warning, by --resume",
          "[cli][sweep][lock]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kSweepScenario);
  const auto index = dir / "sweep.h5";
  const auto members = dir / "sweep.h5.members";
  REQUIRE(
      run_command(fleetwatt_command() + " sweep -q " + s.string() + " --grid seed=1..3 -o " + index.string())
          .exit_code == 0);
  // As a rank killed while writing members 1 and 2 leaves them (a pid that ran on another host, or is
  // alive again by reuse, is as dead: no other sweep writes here while this one holds the lock).
  fs::remove(members / "m000001.h5");
  fs::remove(members / "m000002.h5");
  std::ofstream(members / "m000001.h5.tmp-4194305") << "half a member";
  std::ofstream(members / ("m000002.h5.tmp-" + std::to_string(::getpid()))) << "half a member";
  auto r = run_command(fleetwatt_command() + " sweep -q " + s.string() + " --grid seed=1..3 --resume -o " +
                       index.string());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err == "fleetwatt: warning: removed 2 unfinished member files (*.h5.tmp-PID) in " +
                     members.string() + " left by a sweep that was killed while writing\n");
  CHECK_FALSE(fs::exists(members / "m000001.h5.tmp-4194305"));
  CHECK_FALSE(fs::exists(members / ("m000002.h5.tmp-" + std::to_string(::getpid()))));
  CHECK(fs::exists(members / "m000001.h5"));
  CHECK(fs::exists(members / "m000002.h5"));
}

TEST_CASE("a region run into an output being written is refused at once, naming the holder",
          "[cli][region][lock]") {
  TempDir dir;
  dir.write("s.toml", kSweepScenario);
  const auto region = dir.write(
      "region.toml",
      "name = \"pair\"\nseed = 5\n[[site]]\nname = \"east\"\nscenario = \"s.toml\"\n\n[[site]]\nname = "
      "\"west\"\nscenario = \"s.toml\"\nset = [\"fleet.nodes = 6\"]\n");
  const auto out = dir / "region.h5";
  const HeldLock held(dir / "region.h5.lock", "pid 4194305 host elsewhere\n");
  auto r = run_command(fleetwatt_command() + " run -q " + region.string() + " -o " + out.string());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "fleetwatt: error: -o: " + out.string() +
                     ": another fleetwatt is writing it (pid 4194305 host elsewhere; lock " + out.string() +
                     ".lock); wait for it to end or give another -o\n");
  CHECK_FALSE(fs::exists(out));
  CHECK_FALSE(fs::exists(dir / "region.h5.sites"));
}
