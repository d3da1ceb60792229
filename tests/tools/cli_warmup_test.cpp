// The warm-up through the fleetwatt command: the default day starts from a fleet at its steady occupancy,
// warmup_s = 0 gives the results of the time before warm-ups existed, bit for bit, job lists have none, a
// bad value is refused like any bad input, and everything written covers [0, horizon) only.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using fleetwatt::results::ResultReader;

namespace {
std::filesystem::path day_fleet() {
  return source_dir() / "examples/scenarios/day-fleet.toml";
}

/// The default day with `line` set in its [workload] table (added, or replacing the key's line).
std::filesystem::path day_fleet_with(const TempDir& dir, const std::string& line) {
  std::ifstream in(day_fleet());
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  // A key the file sets already (warmup_arrivals) is replaced, not given twice.
  const std::string name = "\n" + line.substr(0, line.find(" =")) + " = ";
  if (const auto at = s.find(name); at != std::string::npos) {
    s.replace(at + 1, s.find('\n', at + 1) - at - 1, line);
    return dir.write("day.toml", s);
  }
  const std::string key = "horizon_s = 86400\n";
  s.replace(s.find(key), key.size(), key + line + "\n");
  return dir.write("day.toml", s);
}

/// FNV-1a over the values' bytes (little-endian doubles): equal hashes, equal series bit for bit.
std::uint64_t fnv1a(const std::vector<double>& v) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (double x : v) {
    unsigned char b[8];
    std::memcpy(b, &x, 8);
    for (unsigned char c : b) h = (h ^ c) * 0x100000001b3ULL;
  }
  return h;
}

/// The default day as shipped, run once for the tests that read its file.
const std::filesystem::path& default_day_h5() {
  static TempDir dir;
  static const std::filesystem::path out = [] {
    auto p = dir / "day.h5";
    auto r = run_command(fleetwatt_command() + " run " + day_fleet().string() + " -o " + p.string());
    REQUIRE(r.exit_code == 0);
    REQUIRE(r.out.find("occupancy at t=0") != std::string::npos);
    return p;
  }();
  return out;
}

double scalar(const ResultReader& h5, const std::string& path) {
  return h5.doubles(path).at(0);
}
}  // namespace

/// P(00:00) / P(24:00) of a day: its first and last facility interval (1 s means).
double day_ratio(const TempDir& dir, const std::filesystem::path& scenario, int seed) {
  const auto out = dir / fmt::format("s{}.h5", seed);
  auto r =
      run_command(fleetwatt_command() + " run " + scenario.string() + " --quiet" +
                  (seed > 0 ? " --seed " + std::to_string(seed) : std::string()) + " -o " + out.string());
  REQUIRE(r.exit_code == 0);
  const auto p = ResultReader(out).doubles("/facility/facility_power_W");
  std::filesystem::remove(out);
  REQUIRE(p.size() == 86400);
  return p.front() / p.back();
}

TEST_CASE("the default day is a typical day: its 00:00 within 5 % of its 24:00", "[cli][warmup]") {
  // The figure: the shipped scenario at its own seed. Its periodic warm-up (a whole day of the day's
  // own arrivals before 00:00) leaves the fleet at 00:00 as the day leaves it at 24:00, so the two differ
  // only by what a second copy of the day would still change (measured 0.6 % at the shipped seed, at most
  // 2.0 % over seeds 1-12, docs/scenario.md); 5 % is the bound, checked at four more seeds too. The
  // same day with fresh ("continued") warm-up arrivals misses at the shipped seed by chance (0.943).
  TempDir dir;
  CHECK(std::fabs(day_ratio(dir, day_fleet(), 0) - 1.0) < 0.05);
  for (int seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    CHECK(std::fabs(day_ratio(dir, day_fleet(), seed) - 1.0) < 0.05);
  }
}

TEST_CASE("a continued warm-up begins the day at its steady state on average over seeds",
          "[cli][warmup][slow]") {
  // With fresh warm-up arrivals one day's 00:00 and 24:00 differ by chance (which large jobs happen to run),
  // about 7 % (one standard deviation) on this fleet; the warm-up removes the bias of the empty start. So
  // the mean over 12 seeds of P(00:00) / P(24:00) must be within 5 % of 1; without a warm-up it is about 0.7
  // (the fleet empty at midnight), which 4 seeds show.
  TempDir dir;
  const auto continued = day_fleet_with(dir, "warmup_arrivals = \"continued\"");
  double with = 0;
  for (int seed = 1; seed <= 12; ++seed) with += day_ratio(dir, continued, seed) / 12;
  CHECK(std::fabs(with - 1.0) < 0.05);
  const auto cold = day_fleet_with(dir, "warmup_s = 0");
  double without = 0;
  for (int seed = 1; seed <= 4; ++seed) without += day_ratio(dir, cold, seed) / 4;
  CHECK(without < 0.8);
}

TEST_CASE("warmup_s = 0 reproduces the default day as it was before warm-ups", "[cli][warmup]") {
  // The facility series of the default day at a4526af (the last commit without a warm-up): three of its
  // values from that commit's build, to the last bits a sum's order moves (GPU power is summed exactly
  // since: its servers' and fleet's sums in integers, where a4526af added doubles in event order), and the
  // series' FNV-1a hash from the build that made the sums exact, bit for bit.
  TempDir dir;
  const auto out = dir / "cold.h5";
  auto r = run_command(fleetwatt_command() + " run " + day_fleet_with(dir, "warmup_s = 0").string() + " -o " +
                       out.string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("warm-up") == std::string::npos);
  ResultReader h5(out);
  const auto p = h5.doubles("/facility/facility_power_W");
  REQUIRE(p.size() == 86400);
  CHECK(p[0] == 1255400.0);
  CHECK(p[43200] == Approx(2435412.4373151655).epsilon(1e-12));
  CHECK(p[86399] == Approx(1918689.962717916).epsilon(1e-12));
  CHECK(fnv1a(p) == 0xf7658119bcc39a26ULL);
  CHECK(scalar(h5, "/summary/warmup_s") == 0.0);
}

TEST_CASE("the default day's warm-up is a day and shows in /jobs, /summary and the printed summary",
          "[cli][warmup]") {
  ResultReader h5(default_day_h5());
  // 2 x the longest generated job (40 epochs of ViT at 300,000 samples: 40 x 3 x 188.99 s = 22,679 s) =
  // 45,358 s, rounded up to whole days for its periodic warm-up: 86,400 s (13 h, whole hours, continued).
  CHECK(scalar(h5, "/summary/warmup_s") == 86400.0);
  const auto submit = h5.doubles("/jobs/submit_s");
  const auto start = h5.doubles("/jobs/start_s");
  const auto end = h5.doubles("/jobs/end_s");
  std::size_t started_before = 0, running_at_0 = 0;
  for (std::size_t i = 0; i < submit.size(); ++i) {
    CHECK(submit[i] >= -86400.0);
    if (start[i] < 0) ++started_before;
    if (start[i] < 0 && !(end[i] < 0)) ++running_at_0;  // NaN end: still running at the horizon
  }
  CHECK(started_before > 0);
  CHECK(running_at_0 > 0);
  const double occupancy = scalar(h5, "/summary/occupancy_at_start");
  CHECK(occupancy > 0.0);
  CHECK(scalar(h5, "/summary/occupancy_mean") == scalar(h5, "/summary/gpu_utilisation"));
  // Counts: arrived in the window + carried over at 0 = finished + running + queued at the horizon.
  const double arrived = static_cast<double>(
      std::count_if(submit.begin(), submit.end(), [](double t) { return t >= 0 && t < 86400; }));
  CHECK(arrived + scalar(h5, "/summary/jobs_at_start") == scalar(h5, "/summary/jobs_finished") +
                                                              scalar(h5, "/summary/jobs_running") +
                                                              scalar(h5, "/summary/jobs_queued"));
}

TEST_CASE("with a warm-up, energies cover 0 to the horizon only and agree with the series", "[cli][warmup]") {
  ResultReader h5(default_day_h5());
  const auto t = h5.doubles("/facility/time_s");
  const auto p = h5.doubles("/facility/facility_power_W");
  REQUIRE(t.front() == 0.0);
  // 1 s interval means: the integral over [0, 86400) is their sum x 1 s (compensated, as the ledger sums).
  double sum = 0, c = 0;
  for (double w : p) {
    const double y = w - c, s = sum + y;
    c = (s - sum) - y;
    sum = s;
  }
  CHECK(sum == Approx(scalar(h5, "/summary/facility_energy_J")).epsilon(1e-12));
  CHECK(h5.doubles("/facility/energy_J").back() == Approx(sum).epsilon(1e-12));
  // GPU energy = the jobs' energies + idle GPUs: 60 W x (4000 GPUs x 86400 s - allocated GPU-s). Warm-up
  // jobs' energies from before 0 would break it.
  const auto energy = h5.doubles("/jobs/energy_J");
  const double jobs_J = std::accumulate(energy.begin(), energy.end(), 0.0);
  const double idle_J = 60.0 * (4000.0 * 86400.0 - scalar(h5, "/summary/gpu_seconds"));
  CHECK(jobs_J + idle_J == Approx(scalar(h5, "/summary/gpu_energy_J")).epsilon(1e-9));
  // GPU changes: none before 0, and every GPU has a row at 0.
  const auto changes_t = h5.doubles("/gpus/changes/time_s");
  CHECK(*std::min_element(changes_t.begin(), changes_t.end()) == 0.0);
  const auto gpu = h5.integers("/gpus/changes/gpu");
  std::vector<bool> at_zero(4000, false);
  for (std::size_t i = 0; i < gpu.size() && changes_t[i] == 0.0; ++i) at_zero.at(gpu[i]) = true;
  CHECK(std::count(at_zero.begin(), at_zero.end(), true) == 4000);
  const auto net_t = h5.doubles("/network/time_s");
  CHECK(net_t.front() == 0.0);
}

TEST_CASE("job lists get no warm-up, and a bad warmup_s is refused with its place", "[cli][warmup]") {
  TempDir dir;
  const std::string jobs =
      "[fleet]\nnodes = 2\ngpus_per_node = 4\n[workload]\nhorizon_s = 3600\n{}"
      "[[workload.jobs]]\nn_gpus = 4\nepochs = 2\nclass = \"vit\"\n";
  auto with = [&](const std::string& line) {
    std::string s = jobs;
    return s.replace(s.find("{}"), 2, line);
  };
  const auto out = dir / "out.h5";
  auto r = run_command(fleetwatt_command() + " run " + dir.write("jobs.toml", with("")).string() + " -o " +
                       out.string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("warm-up") == std::string::npos);
  CHECK(scalar(ResultReader(out), "/summary/warmup_s") == 0.0);
  std::filesystem::remove(out);
  for (const auto& [line, expected] :
       {std::pair{"warmup_s = -60\n", "bad.toml:6:1: workload.warmup_s: must be zero or more, got -60"},
        {"warmup_s = \"1h\"\n", "bad.toml:6:1: workload.warmup_s: expected a number"}}) {
    dir.write("bad.toml", with(line));
    auto bad = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() + " run bad.toml -o " +
                           out.string());
    INFO(line);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find(expected) != std::string::npos);
    CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(out));
  }
}
