// `fleetwatt run` with [failures]: the printed line, the /jobs columns and /summary totals (written only
// when failures are on), the same file twice for the same seed, and a bad key refused with exit status 2.
#include <catch2/catch.hpp>

#include <fstream>
#include <numeric>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {
// Three 8-GPU ViT jobs for two days, failing at 0.005 per GPU-hour (one per job every 25 h of running).
const std::string kRun = R"(seed = 4
[fleet]
nodes = 6
gpus_per_node = 4
gpu = "a800"
[workload]
horizon_s = 172800
[[workload.jobs]]
n_gpus = 8
epochs = 2000
class = "vit"
[[workload.jobs]]
n_gpus = 8
epochs = 2000
class = "bert"
[[workload.jobs]]
n_gpus = 8
epochs = 2000
class = "vit"
failure_rate_per_gpu_hour = 0.02
[output]
gpu_changes = false
)";
const std::string kOn = "[failures]\nenabled = true\nrate_per_gpu_hour = 0.005\n";
}  // namespace

TEST_CASE("a run with failures prints them and writes their columns and totals", "[cli][failures]") {
  TempDir dir;
  const auto on = dir.write("on.toml", kRun + kOn);
  const auto off = dir.write("off.toml", kRun);
  auto r = run_command(fleetwatt_command() + " run " + on.string() + " -o " + (dir / "on.h5").string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("  interruptions") != std::string::npos);
  CHECK(r.out.find("per GPU-h); lost") != std::string::npos);
  fleetwatt::results::ResultReader h5(dir / "on.h5");
  const auto n = h5.integers("/jobs/interruptions");
  REQUIRE(n.size() == 3);
  const auto total = std::accumulate(n.begin(), n.end(), std::int64_t{0});
  CHECK(h5.integers("/summary/interruptions").front() == total);
  CHECK(total > 0);
  const auto lost = h5.doubles("/jobs/lost_gpu_s");
  CHECK(h5.doubles("/summary/lost_gpu_s").front() == Approx(std::accumulate(lost.begin(), lost.end(), 0.0)));
  // Job parts plus restarts add up to each job's energy.
  const auto energy = h5.doubles("/jobs/energy_J");
  for (std::size_t k = 0; k < 3; ++k) {
    double parts = h5.doubles("/jobs/restart_J")[k];
    for (const char* p : {"compute_J", "comm_J", "io_J", "checkpoint_J"})
      parts += h5.doubles(std::string("/jobs/") + p)[k];
    CHECK(parts == Approx(energy[k]).epsilon(1e-9));
  }
  // The expected count: each job's rate x its exposed GPU time, which with no pauses is its held GPU time
  // less restarts (8 GPUs each, all running to the horizon: 2000 epochs outlast two days).
  const auto restart_s = h5.doubles("/jobs/restart_s");
  const double exposed_h0 = 8 * (172800.0 - restart_s[0]) / 3600.0,
               exposed_h1 = 8 * (172800.0 - restart_s[1]) / 3600.0,
               exposed_h2 = 8 * (172800.0 - restart_s[2]) / 3600.0;
  CHECK(h5.doubles("/summary/interruptions_expected").front() ==
        Approx(0.005 * (exposed_h0 + exposed_h1) + 0.02 * exposed_h2).epsilon(1e-9));
  // The same seed writes the same figures.
  auto r2 = run_command(fleetwatt_command() + " run " + on.string() + " -q -o " + (dir / "on2.h5").string());
  REQUIRE(r2.exit_code == 0);
  fleetwatt::results::ResultReader again(dir / "on2.h5");
  CHECK(again.doubles("/facility/facility_power_W") == h5.doubles("/facility/facility_power_W"));
  CHECK(again.doubles("/jobs/energy_J") == energy);
  CHECK(again.integers("/jobs/interruptions") == n);
  // Without the table: no failure columns, no line.
  auto r3 = run_command(fleetwatt_command() + " run " + off.string() + " -o " + (dir / "off.h5").string());
  REQUIRE(r3.exit_code == 0);
  CHECK(r3.out.find("interruptions") == std::string::npos);
  fleetwatt::results::ResultReader plain(dir / "off.h5");
  CHECK_FALSE(plain.has("/jobs/interruptions"));
  CHECK_FALSE(plain.has("/summary/interruptions"));
}

TEST_CASE("a bad [failures] key exits with status 2, one line and no file", "[cli][failures]") {
  TempDir dir;
  dir.write("s.toml", kRun + "[failures]\nenabled = true\nrestart_delay = 60\n");
  const auto out = dir / "out.h5";
  auto r = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() + " run s.toml -o " +
                       out.string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("s.toml:25:1: failures.restart_delay: unknown key") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(out));
}
