// Outputs on a full disk: simulated with a file-size limit, a write fails and the command says so,
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

TEST_CASE("a run whose result would exceed --max-output is refused before it runs", "[cli][outputs]") {
  fleetwatt::test::TempDir dir;
  const auto day = source_dir() / "examples" / "scenarios" / "day-fleet.toml";
  const auto out = dir / "x.h5";
  // The default day: 1,000 servers; node samples every 0.01 s over 86,400 s are 8,640,000 intervals, so the
  // node series alone is 1,001 x 8.64e6 x 8 B = 69.2 GB = 64.4 GiB, above the default 10 GiB.
  auto r = run_command(fleetwatt_binary().string() + " run " + day.string() +
                       " --set output.node_interval_s=0.01 -o " + out.string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("output.node_interval_s: the result file would hold about 64.4 GiB uncompressed (86400 "
                   "facility intervals, 1000 servers x 8640000 node intervals") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  // --max-output lowers (or raises) the limit: 1 MB is below the default day's 69 MB of node series.
  r = run_command(fleetwatt_binary().string() + " run -q " + day.string() + " --max-output 1MB -o " +
                  out.string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("above --max-output 0.000977 GiB") != std::string::npos);
  CHECK(files_in(dir.path()) == 0);
}
