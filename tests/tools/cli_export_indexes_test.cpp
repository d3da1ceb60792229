// `fleetwatt export` of the files that index other runs, and the job times every table shares: a region's
// file (the coincident total beside each site's power and local time; the site table), a sweep index (one
// row per member with its grid values and figures, the sweep's printed table with waits and job times),
// and /summary's wait_mean_s and jct_mean_s checked against the job table they come from and against a
// comparison's columns for the same run.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "csv_text.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using Catch::Detail::Approx;
using fleetwatt::results::ResultReader;

namespace {
std::size_t column_of(const std::string& header, const std::string& name) {
  const auto h = fields(header);
  const auto at = std::find(h.begin(), h.end(), name);
  REQUIRE(at != h.end());
  return static_cast<std::size_t>(at - h.begin());
}

/// Two jobs that must queue on a 4-GPU fleet, so waits are not all zero.
const std::string kQueued = R"(seed = 3
[fleet]
nodes = 2
gpus_per_node = 2
[workload]
horizon_s = 21600
[[workload.jobs]]
submit_s = 60
n_gpus = 4
epochs = 10
class = "vit"
[[workload.jobs]]
submit_s = 120
n_gpus = 2
epochs = 5
class = "bert"
[[workload.jobs]]
submit_s = 180
n_gpus = 2
epochs = 5
class = "bert"
)";

/// Mean start - submit over started jobs and mean end - submit over finished ones, from a file's /jobs.
std::pair<double, double> job_table_means(const ResultReader& h5) {
  const auto submit = h5.doubles("/jobs/submit_s"), start = h5.doubles("/jobs/start_s"),
             end = h5.doubles("/jobs/end_s");
  double wait = 0, jct = 0;
  int started = 0, finished = 0;
  for (std::size_t i = 0; i < submit.size(); ++i) {
    if (!std::isnan(start[i])) wait += start[i] - submit[i], ++started;
    if (!std::isnan(end[i])) jct += end[i] - submit[i], ++finished;
  }
  return {wait / started, jct / finished};
}
}  // namespace

TEST_CASE("a run's /summary job times are its job table's, and a comparison's for the same run",
          "[cli][export][jobtimes]") {
  TempDir dir;
  const auto scenario = dir.write("q.toml", kQueued);
  const auto run = dir / "q.h5";
  REQUIRE(
      run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + run.string()).exit_code ==
      0);
  const ResultReader h5(run);
  const auto [wait, jct] = job_table_means(h5);
  CHECK(wait > 0.0);  // the 4-GPU job holds the fleet: the others wait for it
  CHECK(h5.doubles("/summary/wait_mean_s").at(0) == Approx(wait).epsilon(1e-9));
  CHECK(h5.doubles("/summary/jct_mean_s").at(0) == Approx(jct).epsilon(1e-9));
  const auto cmp = dir / "cmp.h5";
  REQUIRE(run_command(fleetwatt_command() + " compare " + scenario.string() + " --policies fifo -o " +
                      cmp.string())
              .exit_code == 0);
  const ResultReader c(cmp);
  CHECK(c.doubles("/comparison/wait_mean_s").at(0) == Approx(wait).epsilon(1e-9));
  CHECK(c.doubles("/comparison/jct_mean_s").at(0) == Approx(jct).epsilon(1e-9));
}

TEST_CASE("a sweep index exports one row per member with its grid values, figures and job times",
          "[cli][export][sweep]") {
  TempDir dir;
  const auto scenario = dir.write("q.toml", kQueued);
  const auto index = dir / "sw.h5";
  const auto sweep = run_command(fleetwatt_command() + " sweep " + scenario.string() +
                                 " --grid 'fleet.nodes=[2,3]' --grid seed=1..2 -o " + index.string());
  REQUIRE(sweep.exit_code == 0);
  const auto printed = lines_of(sweep.out);
  REQUIRE(printed.size() >= 6);
  CHECK(printed[1].find("wait h") != std::string::npos);
  CHECK(printed[1].find("job h") != std::string::npos);

  const auto r = run_command(fleetwatt_command() + " export " + index.string());  // members by default
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 5);
  const std::size_t nodes = column_of(lines[0], "fleet.nodes"), seed = column_of(lines[0], "seed"),
                    file = column_of(lines[0], "file"), wait = column_of(lines[0], "wait_mean_s"),
                    jct = column_of(lines[0], "jct_mean_s"),
                    energy = column_of(lines[0], "facility_energy_J");
  for (std::size_t m = 0; m < 4; ++m) {
    INFO("member " << m);
    const auto row = fields(lines[1 + m]);
    CHECK(row[nodes] == (m < 2 ? "2" : "3"));  // the last axis varies fastest
    CHECK(row[seed] == (m % 2 == 0 ? "1" : "2"));
    const ResultReader member(dir / row[file]);
    const auto [w, t] = job_table_means(member);
    CHECK(std::stod(row[wait]) == Approx(w).epsilon(1e-9));
    CHECK(std::stod(row[jct]) == Approx(t).epsilon(1e-9));
    CHECK(std::stod(row[energy]) == member.doubles("/summary/facility_energy_J").at(0));
    // The printed table: the same wait, in hours to 2 decimals.
    CHECK(printed[2 + m].find(fmt::format("{:.2f}", w / 3600)) != std::string::npos);
  }
  const auto refused = run_command(fleetwatt_command() + " export " + index.string() + " --what facility");
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("a sweep index: its members are runs of their own") != std::string::npos);
  const auto on_run = run_command(fleetwatt_command() + " export " + (dir / fields(lines[1])[file]).string() +
                                  " --what members");
  CHECK(on_run.exit_code == 2);
  CHECK(on_run.err.find("--what members: not a sweep index or a region file") != std::string::npos);
}

TEST_CASE("a region's file exports the coincident total, each site's power and local time, and its sites",
          "[cli][export][region]") {
  TempDir dir;
  const auto region = dir / "region.h5";
  REQUIRE(run_command(fleetwatt_command() + " run -q " +
                      (source_dir() / "examples/region-two-sites.toml").string() + " -o " + region.string())
              .exit_code == 0);
  const ResultReader h5(region);
  const auto r = run_command(fleetwatt_command() + " export " + region.string() + " --digits 9");
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of(r.out);
  CHECK(
      lines[0] ==
      "timestamp_utc,time_s,region_grid_import_kW,region_it_power_kW,east_grid_import_kW,west_grid_import_kW,"
      "east_local_time,west_local_time");
  const std::size_t n = h5.length("/region/facility_power_W");
  REQUIRE(lines.size() == n + 1);
  // east starts at 00:00-05:00, west at 00:00-08:00: the common base starts when both run, 08:00 UTC,
  // which is 03:00 in the east and midnight in the west.
  CHECK(lines[1].rfind("2026-01-01T08:00:00Z,0,", 0) == 0);
  const auto first = fields(lines[1]);
  CHECK(first[6] == "2026-01-01T03:00:00-05:00");
  CHECK(first[7] == "2026-01-01T00:00:00-08:00");
  double energy_kWs = 0.0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto f = fields(lines[i]);
    CHECK(std::stod(f[2]) == Approx(std::stod(f[4]) + std::stod(f[5])).epsilon(1e-9));
    energy_kWs += std::stod(f[2]) * 900;
  }
  CHECK(energy_kWs * 1e3 == Approx(h5.doubles("/region/summary/facility_energy_J").at(0)).epsilon(1e-9));
  // Hourly rows: each the mean of its four 15-min rows.
  const auto hourly = lines_of(
      run_command(fleetwatt_command() + " export " + region.string() + " --interval 1h --digits 9").out);
  REQUIRE(hourly.size() == n / 4 + 1);
  for (std::size_t k = 0; k + 1 < hourly.size(); ++k) {
    double sum = 0.0;
    for (std::size_t j = 0; j < 4; ++j) sum += std::stod(fields(lines[1 + 4 * k + j])[2]);
    CHECK(std::stod(fields(hourly[k + 1])[2]) == Approx(sum / 4).epsilon(1e-9));
  }
  // The site table, with each site's --set keys as columns.
  const auto sites =
      lines_of(run_command(fleetwatt_command() + " export " + region.string() + " --what members").out);
  REQUIRE(sites.size() == 3);
  CHECK(fields(sites[1])[column_of(sites[0], "fleet.nodes")] == "500");
  CHECK(fields(sites[1])[column_of(sites[0], "name")] == "east");
  CHECK(fields(sites[2])[column_of(sites[0], "name")] == "west");
}
