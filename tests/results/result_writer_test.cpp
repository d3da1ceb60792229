// The HDF5 result file: layout, units on every dataset, exact series, the job table, provenance, and the
// temporary-file discipline (nothing half-written under the requested name).
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>

#include "../sim/sim_test_support.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "fleetwatt/results/hdf5/result_writer.hpp"
#include "test_support.hpp"

using namespace fleetwatt;

namespace {
const std::string kScenario = R"(
seed = 3
[fleet]
nodes = 3
gpus_per_node = 2
gpu_idle_w = 40
node_base_w = 200
[facility]
pue = 1.5
[workload]
horizon_s = 600
[[workload.jobs]]
submit_s = 10
n_gpus = 3
epochs = 4
peak_w = 250
peak_s = 50
valley_w = 70
valley_s = 10
[[workload.jobs]]
submit_s = 20
n_gpus = 2
epochs = 100
class = "vit"
[output]
facility_interval_s = 1
node_interval_s = 20
)";

sim::RunSummary write_run(const std::filesystem::path& out) {
  auto run = test::make_run(kScenario);
  results::ResultWriter w(out, {3, 2, 1.0, 20.0, true});
  run.engine->attach(&w);
  run.engine->run();
  w.write_jobs(run.engine->jobs(), 2);
  w.write_summary(run.engine->summary());
  w.write_provenance({run.scenario.text, "test.toml", run.scenario.seed, "0.0-test", "abc"});
  w.commit();
  return run.engine->summary();
}
}  // namespace

TEST_CASE("every dataset of a result file carries a units attribute", "[results]") {
  test::TempDir dir;
  write_run(dir / "r.h5");
  results::ResultReader r(dir / "r.h5");
  auto names = r.datasets();
  for (const char* required : {"/facility/time_s",   "/facility/it_power_W", "/facility/facility_power_W",
                               "/facility/energy_J", "/nodes/power_W",       "/nodes/time_s",
                               "/gpus/changes/gpu",  "/gpus/changes/time_s", "/gpus/changes/power_W",
                               "/jobs/id",           "/jobs/class",          "/jobs/n_gpus",
                               "/jobs/nodes",        "/jobs/submit_s",       "/jobs/start_s",
                               "/jobs/end_s",        "/jobs/epochs",         "/jobs/peak_W",
                               "/jobs/valley_W",     "/jobs/energy_J"})
    CHECK(std::find(names.begin(), names.end(), required) != names.end());
  for (const auto& n : names) {
    INFO(n);
    CHECK_FALSE(r.string_attribute(n, "units").empty());
  }
  CHECK(r.string_attribute("/facility/facility_power_W", "units") == "W");
  CHECK(r.string_attribute("/facility/energy_J", "units") == "J");
}

TEST_CASE("the file's series integrate to its totals and nodes sum to IT power", "[results]") {
  test::TempDir dir;
  auto s = write_run(dir / "r.h5");
  results::ResultReader r(dir / "r.h5");
  auto t = r.doubles("/facility/time_s");
  auto it = r.doubles("/facility/it_power_W");
  auto fac = r.doubles("/facility/facility_power_W");
  auto cum = r.doubles("/facility/energy_J");
  REQUIRE(t.size() == 600);
  CHECK(t[599] == 599);
  double e = 0;
  for (std::size_t i = 0; i < fac.size(); ++i) {
    e += fac[i];
    CHECK(fac[i] == Approx(1.5 * it[i]));
  }
  CHECK(e == Approx(s.facility_energy_J).epsilon(1e-12));
  CHECK(cum.back() == Approx(s.facility_energy_J).epsilon(1e-12));
  CHECK(r.doubles("/summary/facility_energy_J")[0] == s.facility_energy_J);
  // Before the first job (t < 10 s) the fleet idles: 3 x (200 + 2 x 40) = 840 W IT.
  CHECK(it[0] == Approx(840));
  auto nodes = r.matrix("/nodes/power_W");
  REQUIRE(nodes.rows == 3);
  REQUIRE(nodes.cols == 30);
  for (std::size_t k = 0; k < nodes.cols; ++k) {
    double sum = 0;
    for (std::size_t n = 0; n < 3; ++n) sum += nodes.at(n, k);
    double mean_it = 0;
    for (std::size_t i = 20 * k; i < 20 * k + 20; ++i) mean_it += it[i] / 20;
    CHECK(sum == Approx(mean_it).epsilon(1e-12));
  }
}

TEST_CASE("the GPU change list rebuilds the exact GPU energy", "[results]") {
  test::TempDir dir;
  auto s = write_run(dir / "r.h5");
  results::ResultReader r(dir / "r.h5");
  auto gpu = r.integers("/gpus/changes/gpu");
  auto t = r.doubles("/gpus/changes/time_s");
  auto w = r.doubles("/gpus/changes/power_W");
  std::vector<double> last_t(6, 0), last_w(6, -1);
  double energy = 0;
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    if (i > 0) CHECK(t[i] >= t[i - 1]);
    auto g = static_cast<std::size_t>(gpu[i]);
    if (last_w[g] >= 0) energy += last_w[g] * (t[i] - last_t[g]);
    last_t[g] = t[i];
    last_w[g] = w[i];
  }
  for (std::size_t g = 0; g < 6; ++g) energy += last_w[g] * (600 - last_t[g]);
  CHECK(energy == Approx(s.gpu_energy_J).epsilon(1e-12));
}

TEST_CASE("the job table has one row per job with its placement and times", "[results]") {
  test::TempDir dir;
  write_run(dir / "r.h5");
  results::ResultReader r(dir / "r.h5");
  CHECK(r.integers("/jobs/id") == std::vector<std::int64_t>{1, 2});
  CHECK(r.strings("/jobs/class") == std::vector<std::string>{"", "vit"});
  // Job 1 (3 GPUs) spans servers 0 and 1 (whole server 0 first); job 2 (2 GPUs) fits whole server 2.
  CHECK(r.strings("/jobs/nodes") == std::vector<std::string>{"0,1", "2"});
  CHECK(r.strings("/jobs/state") == std::vector<std::string>{"finished", "running"});
  auto end = r.doubles("/jobs/end_s");
  CHECK(end[0] == 10 + 4 * 60);
  CHECK(std::isnan(end[1]));
  // Job 1: 3 GPUs x 4 epochs x (250 W x 50 s + 70 W x 10 s).
  CHECK(r.doubles("/jobs/energy_J")[0] == Approx(3 * 4 * (250 * 50 + 70 * 10)));
}

TEST_CASE("the scenario and versions are stored as root attributes", "[results]") {
  test::TempDir dir;
  write_run(dir / "r.h5");
  results::ResultReader r(dir / "r.h5");
  CHECK(r.string_attribute("/", "scenario") == kScenario);
  CHECK(r.integer_attribute("/", "seed") == 3);
  CHECK(r.string_attribute("/", "fleetwatt_version") == "0.0-test");
  CHECK(r.string_attribute("/", "git_commit") == "abc");
  CHECK(r.string_attribute("/", "created").size() == 20);  // 2026-11-22T06:00:00Z
}

TEST_CASE("a run that never commits leaves nothing under the target name and keeps an older file",
          "[results]") {
  test::TempDir dir;
  auto target = dir / "r.h5";
  std::ofstream(target) << "previous result";
  std::filesystem::path temp;
  {
    results::ResultWriter w(target, {1, 1, 1.0, 1.0, true});
    temp = w.temporary();
    CHECK(std::filesystem::exists(temp));
    w.facility_sample(sim::Time::zero(), 1, 1, 1);
    // destroyed without commit, as when a run throws
  }
  CHECK_FALSE(std::filesystem::exists(temp));
  std::ifstream in(target);
  std::string content;
  std::getline(in, content);
  CHECK(content == "previous result");
}

TEST_CASE("a result file in a missing folder is refused with the path", "[results]") {
  CHECK_THROWS_WITH(results::ResultWriter("/no/such/folder/r.h5", {1, 1, 1.0, 1.0, true}),
                    Catch::Contains("/no/such/folder/r.h5"));
}

TEST_CASE("a run's file holds /power_quality of its facility series, at 0.01 s too",
          "[results][power_quality]") {
  // A 2 Hz sinusoid (10 +- 1 MW) sampled at 0.01 s for 3000 s through the writer: the file's figures are
  // those of the series (dominant 2 Hz within a bin of 1/1310.72 Hz, ~all energy in 1-5 Hz). Sample i is at
  // phase 2 pi i / 25: the largest is sin(2 pi 6 / 25), the smallest its negative, so every 1-s range is 2
  // sin(2 pi 6 / 25) MW (1.99606); a 1-s window holds 100 samples, 4 whole periods, so every 1-s mean is 10
  // MW and the 1-s ramps are 0 up to rounding.
  test::TempDir dir;
  results::WriterLayout layout{1, 1, 0.01, 10.0, false};
  results::ResultWriter w(dir / "pq.h5", layout);
  const std::int64_t n = 300000;
  for (std::int64_t i = 0; i < n; ++i) {
    const double p = 10e6 + 1e6 * std::sin(2 * M_PI * 2.0 * static_cast<double>(i) * 0.01);
    w.facility_sample(sim::Time::from_ns(i * 10'000'000), p, p, 0.0);
  }
  sim::RunSummary s;
  s.horizon_s = 3000;
  w.write_summary(s);
  w.commit();
  results::ResultReader r(dir / "pq.h5");
  auto scalar = [&](const std::string& name) { return r.doubles("/power_quality/" + name).at(0); };
  CHECK(std::abs(scalar("dominant_frequency_Hz") - 2.0) <= 1.0 / 1310.72);
  CHECK(scalar("band_share_1_5Hz") > 0.99);
  CHECK(scalar("dynamic_range_1s_MW") == Approx(2 * std::sin(2 * M_PI * 6 / 25)).epsilon(1e-9));
  CHECK(std::abs(scalar("ramp_up_1s_MW")) < 1e-6);
  CHECK(scalar("interval_s") == Approx(0.01));
  CHECK(static_cast<std::int64_t>(scalar("welch_segment_length")) == 131072);
}
