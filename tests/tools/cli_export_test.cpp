// `fleetwatt export` end to end: the default day as a 15-min load profile (96 rows whose mean is the run's
// mean facility power, to the last digit: what a planner's study sums), 1-h rows as means of 15-min rows in
// fours, ISO time stamps from a non-default [output] start, the job table, a comparison's per-policy series,
// and bad input (exit 2, one line, no file). Also the grid metrics a run writes and prints.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>

#include "csv_text.hpp"
#include "default_day.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using Catch::Detail::Approx;

namespace {
const std::string kSmall = R"(seed = 5
[fleet]
nodes = 3
gpus_per_node = 2
[facility]
pue = 1.5
[workload]
horizon_s = 10800
[[workload.jobs]]
submit_s = 100
n_gpus = 3
epochs = 20
class = "vit"
[[workload.jobs]]
submit_s = 200
n_gpus = 2
epochs = 10
class = "bert"
[grid]
system_peak_hours = [3, 4]
[output]
start = "2026-07-01T02:00:00+02:00"
node_interval_s = 60
)";
}  // namespace

TEST_CASE("export of the default day: 96 rows of 15 min whose mean is the run's mean power",
          "[cli][export]") {
  TempDir dir;
  const auto csv = dir / "day.csv";
  const auto r = run_command(fleetwatt_command() + " export " + day_result().string() +
                             " --interval 15min --digits 12 -o " + csv.string());
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of(slurp(csv));
  REQUIRE(lines.size() == 97);
  CHECK(lines[0] ==
        "timestamp_iso8601,time_s,it_power_kW,facility_power_kW,grid_import_kW,carbon_kg,cost_currency");
  CHECK(lines[1].rfind("2026-01-01T00:00:00Z,0,", 0) == 0);
  CHECK(lines[96].rfind("2026-01-01T23:45:00Z,85500,", 0) == 0);
  double sum_kw = 0.0, carbon = 0.0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto f = fields(lines[i]);
    REQUIRE(f.size() == 7);
    sum_kw += std::stod(f[3]);
    CHECK(f[4] == f[3]);  // no batteries: the meter reads the facility's own power
    carbon += std::stod(f[5]);
  }
  fleetwatt::results::ResultReader h5(day_result());
  // Each row is its 900 s of energy / 900 s, so the mean of 96 rows is the day's energy / 86400 s.
  CHECK(sum_kw / 96 * 1e3 == Approx(h5.doubles("/summary/mean_facility_W").at(0)).epsilon(1e-9));
  CHECK(carbon == Approx(h5.doubles("/summary/carbon_kg").at(0)).epsilon(1e-9));
  CHECK(r.err.find("96 rows") != std::string::npos);
  // Nothing else is left beside the CSV (no temporary file).
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 1);
}

TEST_CASE("a 1-h export row is the mean of its four 15-min rows", "[cli][export]") {
  const auto q =
      run_command(fleetwatt_command() + " export " + day_result().string() + " --interval 15min --digits 12");
  const auto h =
      run_command(fleetwatt_command() + " export " + day_result().string() + " --interval 1h --digits 12");
  REQUIRE(q.exit_code == 0);
  REQUIRE(h.exit_code == 0);
  const auto ql = lines_of(q.out), hl = lines_of(h.out);
  REQUIRE(ql.size() == 97);
  REQUIRE(hl.size() == 25);
  for (std::size_t k = 0; k < 24; ++k) {
    const auto hour = fields(hl[k + 1]);
    for (std::size_t c : {2u, 3u, 4u}) {  // IT, facility and import kW: means
      double sum = 0.0;
      for (std::size_t j = 0; j < 4; ++j) sum += std::stod(fields(ql[1 + 4 * k + j])[c]);
      CHECK(std::stod(hour[c]) == Approx(sum / 4).epsilon(1e-9));
    }
    double carbon = 0.0;  // carbon: a total, so the hour is the sum of its quarters
    for (std::size_t j = 0; j < 4; ++j) carbon += std::stod(fields(ql[1 + 4 * k + j])[5]);
    CHECK(std::stod(hour[5]) == Approx(carbon).epsilon(1e-9));
  }
}

TEST_CASE("a run writes grid metrics, prints the peak's time, and stores counts as integers",
          "[cli][export]") {
  fleetwatt::results::ResultReader h5(day_result());
  using Kind = fleetwatt::results::ResultReader::Kind;
  for (const char* count : {"/summary/jobs_total", "/summary/jobs_finished", "/summary/jobs_running",
                            "/summary/jobs_queued", "/summary/capped_predictions"})
    CHECK(h5.kind(count) == Kind::integer);
  const auto p = h5.doubles("/facility/facility_power_W");
  const auto ldc = h5.doubles("/grid/load_duration_kW");
  REQUIRE(ldc.size() == 101);
  // 0 % exceeded: the peak interval mean; 100 %: the lowest; 50 %: the median of 86400 equal intervals (the
  // 43200th highest).
  std::vector<double> sorted = p;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  CHECK(ldc[0] * 1e3 == Approx(sorted.front()).epsilon(1e-12));
  CHECK(ldc[100] * 1e3 == Approx(sorted.back()).epsilon(1e-12));
  CHECK(ldc[50] * 1e3 == Approx(sorted[43199]).epsilon(1e-12));
  const auto peak = std::max_element(p.begin(), p.end()) - p.begin();
  CHECK(h5.doubles("/summary/peak_facility_time_s").at(0) == static_cast<double>(peak));
  CHECK(h5.doubles("/summary/load_factor").at(0) ==
        Approx(h5.doubles("/summary/mean_facility_W").at(0) / sorted.front()).epsilon(1e-9));
  // The 1-h peak: the highest mean of 3600 consecutive seconds starting on the hour.
  double best = 0.0;
  for (std::size_t h = 0; h < 24; ++h) {
    double s = 0.0;
    for (std::size_t i = 0; i < 3600; ++i) s += p[h * 3600 + i];
    best = std::max(best, s / 3600);
  }
  CHECK(h5.doubles("/summary/peak_1h_W").at(0) == Approx(best).epsilon(1e-9));
  CHECK(h5.string_attribute("/", "start") == "2026-01-01T00:00:00Z");
  CHECK(h5.string_attribute("/grid/load_duration_kW", "units").rfind("kW", 0) == 0);
}

TEST_CASE("export time stamps follow a non-default [output] start, nodes and jobs", "[cli][export]") {
  TempDir dir;
  const auto scenario = dir.write("s.toml", kSmall);
  const auto h5file = dir / "s.h5";
  const auto run = run_command(fleetwatt_command() + " run " + scenario.string() + " -o " + h5file.string());
  REQUIRE(run.exit_code == 0);
  // The printed peak time is on the start's clock, and the coincident peak is printed.
  CHECK(run.out.find("(highest interval mean) at 2026-07-01T0") != std::string::npos);
  CHECK(run.out.find("coincident peak") != std::string::npos);
  fleetwatt::results::ResultReader h5(h5file);
  CHECK(h5.integer_attribute("/", "start_utc_offset_s") == 7200);
  // 02:00 to 05:00 local: hours 3 and 4 are in the run, and whole.
  CHECK(h5.doubles("/summary/coincident_peak_hours").at(0) == 2.0);
  const auto hourly =
      run_command(fleetwatt_command() + " export " + h5file.string() + " --interval 1h --digits 12");
  REQUIRE(hourly.exit_code == 0);
  const auto lines = lines_of(hourly.out);
  REQUIRE(lines.size() == 4);
  CHECK(lines[1].rfind("2026-07-01T02:00:00+02:00,0,", 0) == 0);
  CHECK(lines[2].rfind("2026-07-01T03:00:00+02:00,3600,", 0) == 0);
  CHECK(lines[3].rfind("2026-07-01T04:00:00+02:00,7200,", 0) == 0);
  // Coincident peak = the larger of the hourly means of hours 3 and 4 (rows 2 and 3).
  const double h3 = std::stod(fields(lines[2])[3]), h4 = std::stod(fields(lines[3])[3]);
  CHECK(h5.doubles("/summary/coincident_peak_max_W").at(0) == Approx(std::max(h3, h4) * 1e3).epsilon(1e-9));
  CHECK(h5.doubles("/summary/coincident_peak_mean_W").at(0) == Approx((h3 + h4) / 2 * 1e3).epsilon(1e-9));

  const auto nodes = run_command(fleetwatt_command() + " export " + h5file.string() +
                                 " --what nodes --interval 1h --digits 12");
  REQUIRE(nodes.exit_code == 0);
  const auto nl = lines_of(nodes.out);
  REQUIRE(nl.size() == 4);
  CHECK(nl[0] == "timestamp_iso8601,time_s,node0_power_kW,node1_power_kW,node2_power_kW");
  // The nodes sum to the IT power (facility / PUE) in every hour.
  for (std::size_t k = 1; k < 4; ++k) {
    const auto f = fields(nl[k]);
    CHECK(std::stod(f[2]) + std::stod(f[3]) + std::stod(f[4]) ==
          Approx(std::stod(fields(lines[k])[2])).epsilon(1e-9));
  }

  const auto jobs = dir / "jobs.csv";
  REQUIRE(run_command(fleetwatt_command() + " export " + h5file.string() + " --what jobs -o " + jobs.string())
              .exit_code == 0);
  const auto jl = lines_of(slurp(jobs));
  REQUIRE(jl.size() == 1 + h5.length("/jobs/id"));
  CHECK(jl[0].rfind("id,class,n_gpus,nodes,state,submit_s,start_s,end_s,", 0) == 0);
  // Job 1 runs on 3 GPUs of 2-GPU servers: its node list "0,1" is quoted text.
  CHECK(jl[1].rfind("1,vit,3,\"0,1\",", 0) == 0);
}

TEST_CASE("export of a comparison: per-policy series", "[cli][export]") {
  TempDir dir;
  const auto scenario = dir.write("s.toml", kSmall);
  const auto file = dir / "cmp.h5";
  const auto c = run_command(fleetwatt_command() + " compare " + scenario.string() +
                             " --policies fifo,sjf -o " + file.string());
  REQUIRE(c.exit_code == 0);
  fleetwatt::results::ResultReader h5(file);
  CHECK(h5.has("/policies/fifo/facility/time_s"));
  CHECK(h5.has("/policies/fifo/facility/facility_power_W"));
  CHECK(h5.doubles("/policies/sjf/grid/load_duration_kW").size() == 101);
  using Kind = fleetwatt::results::ResultReader::Kind;
  for (const char* count : {"/comparison/jobs_done", "/comparison/jobs_total", "/comparison/deadline_misses"})
    CHECK(h5.kind(count) == Kind::integer);
  CHECK(h5.kind("/comparison/gpu_util") == Kind::real);  // a fraction, unit "1" too, but not a count
  CHECK(h5.doubles("/comparison/jobs_total") == std::vector<double>{2.0, 2.0});
  const auto r = run_command(fleetwatt_command() + " export " + file.string() +
                             " --what policies --interval 1h --digits 12");
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] ==
        "timestamp_iso8601,time_s,fifo_facility_power_kW,fifo_carbon_kg,fifo_cost_currency,sjf_facility_"
        "power_kW,"
        "sjf_carbon_kg,sjf_cost_currency");
  // Each policy's hourly means average to its facility energy / horizon.
  for (std::size_t p = 0; p < 2; ++p) {
    double sum = 0.0;
    for (std::size_t k = 1; k < 4; ++k) sum += std::stod(fields(lines[k])[2 + 3 * p]);
    const std::string policy = p == 0 ? "fifo" : "sjf";
    CHECK(sum / 3 * 1e3 * 10800 == Approx(h5.doubles("/comparison/series_energy_J").at(p)).epsilon(1e-9));
  }
  // A comparison's default export is its policies' series: --year, a profile of the meter, is refused.
  const auto year = run_command(fleetwatt_command() + " export " + file.string() + " --year");
  CHECK(year.exit_code == 2);
  CHECK(year.err.find("--year: is a profile of the meter, not of --what policies") != std::string::npos);
  const auto jobs = run_command(fleetwatt_command() + " export " + file.string() + " --what jobs");
  REQUIRE(jobs.exit_code == 0);
  CHECK(lines_of(jobs.out).size() == 1 + 2 * 2);  // a header, 2 jobs per policy
  CHECK(lines_of(jobs.out)[1].rfind("fifo,1,", 0) == 0);
}

TEST_CASE("export refuses bad flags, missing files and the wrong kind of result with status 2",
          "[cli][export]") {
  TempDir dir;
  const auto out = dir / "x.csv";
  const std::string day = day_result().string();
  struct Case {
    std::string args, expected;
  };
  const std::vector<Case> cases = {
      {day + " --interval 15minutes", "--interval: '15minutes' is not an interval"},
      {day + " --interval 0s", "--interval: '0s' is not an interval"},
      {day + " --what power", "--what"},
      {(dir / "missing.h5").string(), "missing.h5: RESULT: no such file"},
      {dir.write("not.h5", "hello").string(), "not.h5: RESULT: not an HDF5 file"},
      {day + " --what policies", "--what policies: not a comparison result"},
      {day + " --what jobs --interval 1h", "--interval: does not apply to --what jobs"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const auto r = run_command(fleetwatt_command() + " export " + c.args + " -o " + out.string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.expected) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(out));
  }
  const auto help = run_command(fleetwatt_command() + " export --help");
  CHECK(help.exit_code == 0);
  for (const char* opt : {"--interval", "--what", "--output"}) CHECK(help.out.find(opt) != std::string::npos);
}

TEST_CASE("docs/cli.md's export examples on the default day run as written", "[cli][export][docs]") {
  const std::string page = slurp(source_dir() / "docs" / "cli.md");
  REQUIRE(!page.empty());
  TempDir dir;
  std::filesystem::copy_file(day_result(), dir / "day.h5");
  std::size_t ran = 0;
  std::istringstream in(page);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("fleetwatt export day.h5 ", 0) != 0) continue;
    const std::string command = line.substr(0, line.find('#'));
    INFO(command);
    const auto r =
        run_command("cd " + dir.path().string() + " && " + fleetwatt_command() + command.substr(9));
    CHECK(r.exit_code == 0);
    ++ran;
  }
  CHECK(ran >= 3);
  // "96 rows: the day in 15-min means".
  REQUIRE(std::filesystem::exists(dir / "day.csv"));
  CHECK(lines_of(slurp(dir / "day.csv")).size() == 97);
  CHECK(page.find("fleetwatt export day.h5 --interval 15min -o day.csv") != std::string::npos);
}

TEST_CASE("strings are UTF-8 in the file and come back as written", "[cli][export][utf8]") {
  // A node group named with non-ASCII letters: /fleet/name and /jobs/gpu are variable-length UTF-8 strings.
  TempDir dir;
  const auto scenario = dir.write("s.toml", R"([[fleet.group]]
name = "halle-süd-ß"
nodes = 2
gpus_per_node = 2
gpu = "a800"
[[fleet.group]]
name = "東"
nodes = 1
gpus_per_node = 1
gpu = "t4"
[workload]
horizon_s = 600
[[workload.jobs]]
n_gpus = 2
epochs = 1
class = "vit"
[output]
start = "2026-05-01T00:00:00Z"
)");
  const auto file = dir / "u.h5";
  REQUIRE(
      run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + file.string()).exit_code ==
      0);
  fleetwatt::results::ResultReader h5(file);
  CHECK(h5.strings("/fleet/name") == std::vector<std::string>{"halle-süd-ß", "東"});
  CHECK(h5.string_attribute("/", "scenario").find("halle-süd-ß") != std::string::npos);
  CHECK(h5.string_attribute("/", "start") == "2026-05-01T00:00:00Z");
  const auto jobs = run_command(fleetwatt_command() + " export " + file.string() + " --what jobs");
  REQUIRE(jobs.exit_code == 0);
  CHECK(lines_of(jobs.out).size() == 2);
}
