// The SimGrid side-by-side's 4,000-GPU scenario (bench/simgrid/) through the fleetwatt binary: its job file
// parses and has the stated jobs and GPUs, and the run's facility energy equals both the energy computed
// here from the job file's own arithmetic (given the run's start times) and the energy SimGrid computed for
// the same files (published in bench/simgrid/README.md), so a change to the engine's queue, placement or
// metering that moves either shows here.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/jobs/jobs_csv.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {

// bench/simgrid/README.md, "Results": simgrid_fleet (SimGrid 3.32, Debian 12's libsimgrid-dev 3.32-2+b2) on
// bench/simgrid/fleet-4k.toml. Its job counts at the horizon are those below.
constexpr double kSimGridFacilityJ = 257772134637.5;
constexpr double kSimGridGpuJ = 154377707710.0;
constexpr std::int64_t kSimGridFinished = 2746, kSimGridRunning = 273, kSimGridQueued = 0;

const auto kScenario = [] { return source_dir() / "bench/simgrid/fleet-4k.toml"; };

}  // namespace

TEST_CASE("SimGrid bench: the 4,000-GPU job file parses and has the stated jobs and GPUs", "[cli][simgrid]") {
  const auto scenario = fleetwatt::runs::load_scenario(kScenario());
  CHECK(scenario.fleet.total_gpus() == 4000);
  CHECK(scenario.fleet.nodes == 500);
  CHECK(scenario.fleet.gpus_per_node == 8);
  const auto jobs = fleetwatt::jobs::read_jobs_csv(source_dir() / "bench/simgrid/fleet-4k-jobs.csv");
  REQUIRE(jobs.size() == 3019);
  CHECK(scenario.workload.jobs.size() == jobs.size());
  const double idle_W = *scenario.fleet.gpu_idle_W, tdp_W = *scenario.fleet.gpu_tdp_W;
  double previous_submit = 0;
  for (const auto& j : jobs) {
    INFO("job " << j.id);
    REQUIRE(j.phases);
    CHECK(j.n_gpus >= 1);
    CHECK(j.n_gpus <= 64);
    CHECK(j.submit_s >= previous_submit);  // in arrival order
    CHECK(j.submit_s < scenario.workload.horizon_s);
    CHECK(j.phases->peak_W <= tdp_W);
    CHECK(j.phases->valley_W <= j.phases->peak_W);
    CHECK(j.phases->valley_W >= idle_W);
    previous_submit = j.submit_s;
  }
}

TEST_CASE("SimGrid bench: fleetwatt's energy on 4,000 GPUs equals the job file's arithmetic and SimGrid's",
          "[cli][simgrid]") {
  TempDir dir;
  const auto out = dir / "fleet-4k.h5";
  const auto r = run_command(fleetwatt_command() + " run -q " + kScenario().string() + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  fleetwatt::results::ResultReader h5(out);
  const double facility_J = h5.doubles("/summary/facility_energy_J").at(0);
  const double gpu_J = h5.doubles("/summary/gpu_energy_J").at(0);

  // The energy from the job file's own phases, placed at the start times the run gave them: every GPU at
  // idle power over the horizon, plus each job's GPUs' excess over idle in the part of each phase before the
  // horizon; the servers' base power throughout; facility = IT x PUE.
  const auto scenario = fleetwatt::runs::load_scenario(kScenario());
  const double h = scenario.workload.horizon_s, idle_W = *scenario.fleet.gpu_idle_W;
  const auto jobs = fleetwatt::jobs::read_jobs_csv(source_dir() / "bench/simgrid/fleet-4k-jobs.csv");
  const auto ids = h5.doubles("/jobs/id");
  const auto start = h5.doubles("/jobs/start_s");
  const auto end = h5.doubles("/jobs/end_s");
  REQUIRE(ids.size() == jobs.size());
  double excess_J = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const auto& j = jobs[k];
    INFO("job " << j.id);
    REQUIRE(ids[k] == static_cast<double>(j.id));  // /jobs is in job order: the file's (by submit time)
    if (std::isnan(start[k])) continue;  // never started
    CHECK(start[k] >= j.submit_s);
    const auto& p = *j.phases;
    const double epoch_s = p.peak_s + p.valley_s;
    if (!std::isnan(end[k])) CHECK(end[k] == start[k] + j.epochs * epoch_s);
    for (std::uint32_t e = 0; e < j.epochs; ++e) {
      const double t0 = start[k] + e * epoch_s;
      if (t0 >= h) break;
      const double peak = std::min(p.peak_s, h - t0);
      const double valley = std::clamp(h - t0 - p.peak_s, 0.0, p.valley_s);
      excess_J += j.n_gpus * ((p.peak_W - idle_W) * peak + (p.valley_W - idle_W) * valley);
    }
  }
  const double gpus = static_cast<double>(scenario.fleet.total_gpus());
  const double arithmetic_gpu_J = gpus * idle_W * h + excess_J;
  const double arithmetic_facility_J =
      (arithmetic_gpu_J + scenario.fleet.nodes * scenario.fleet.node_base_W * h) * scenario.facility.pue;
  CHECK(gpu_J == Approx(arithmetic_gpu_J).epsilon(1e-12));
  CHECK(facility_J == Approx(arithmetic_facility_J).epsilon(1e-12));

  // SimGrid's figures for the same files: the same schedule (counts) and energy to 1e-9 (SimGrid and fleetwatt
  // agreed to the joule when published; 1e-9 leaves room for summation order, about 260 J here).
  CHECK(facility_J == Approx(kSimGridFacilityJ).epsilon(1e-9));
  CHECK(gpu_J == Approx(kSimGridGpuJ).epsilon(1e-9));
  CHECK(h5.integers("/summary/jobs_total").at(0) == 3019);
  CHECK(h5.integers("/summary/jobs_finished").at(0) == kSimGridFinished);
  CHECK(h5.integers("/summary/jobs_running").at(0) == kSimGridRunning);
  CHECK(h5.integers("/summary/jobs_queued").at(0) == kSimGridQueued);
}
