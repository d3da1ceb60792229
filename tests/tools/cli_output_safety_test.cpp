// Outputs on a full disk (issue 16): simulated with a file-size limit, a write fails and the command says so,
// exits non-zero and leaves neither the output nor a temporary file.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace fleetwatt::test;

namespace {
std::size_t files_in(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}
}  // namespace

TEST_CASE("past a file-size limit a text output fails with the system's reason and leaves nothing",
          "[core]") {
  // `ulimit -f` makes writes beyond the limit fail with EFBIG, as a full disk fails with ENOSPC; fleetwatt
  // ignores SIGXFSZ so the failure is reported rather than killing the process with a core dump.
  fleetwatt::test::TempDir dir;
  const auto scenario = dir.write("s.toml", R"([fleet]
nodes = 2
gpus_per_node = 2
[workload]
horizon_s = 7200
[[workload.jobs]]
n_gpus = 2
epochs = 2
peak_w = 300
peak_s = 1000
valley_w = 100
valley_s = 100
)");
  const std::string fw = fleetwatt::test::fleetwatt_binary().string();
  const auto h5 = dir / "r.h5";
  REQUIRE(
      fleetwatt::test::run_command(fw + " run -q " + scenario.string() + " -o " + h5.string()).exit_code ==
      0);
  // 7,200 one-second rows are far more than the limit's 2 blocks (1 KiB with dash, 2 KiB with bash).
  const auto csv = dir / "load.csv";
  const auto r = fleetwatt::test::run_command("ulimit -f 2 && " + fw + " export " + h5.string() +
                                              " --what facility -o " + csv.string());
  INFO(r.err);
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("load.csv") != std::string::npos);
  CHECK(r.err.find("File too large") != std::string::npos);
  CHECK_FALSE(fs::exists(csv));
  CHECK(files_in(dir.path()) == 2);  // the scenario and the result: no temporary left
}

TEST_CASE("a result that cannot be streamed to disk fails with a message and leaves no file", "[cli]") {
  // HDF5's exceptions are not std::exceptions: one escaping a run once aborted the process (exit 134) and
  // left its temporary file. A day at 1 s writes far more than the 64-block limit.
  TempDir dir;
  const auto scenario = dir.write("s.toml", R"([fleet]
nodes = 2
gpus_per_node = 2
[workload]
horizon_s = 86400
[[workload.jobs]]
n_gpus = 2
epochs = 20
peak_w = 300
peak_s = 1000
valley_w = 100
valley_s = 100
)");
  const auto h5 = dir / "r.h5";
  const auto r = run_command("ulimit -f 64 && " + fleetwatt_binary().string() + " run -q " +
                             scenario.string() + " -o " + h5.string());
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("fleetwatt: error: ") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(fs::exists(h5));
  CHECK(files_in(dir.path()) == 1);  // the scenario only: no temporary left
}
