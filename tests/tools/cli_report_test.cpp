// `fleetwatt report`: the page of a two-day run (figures, captions and metrics checked against hand
// calculations, self-contained, rendered by headless Chromium into a non-blank screenshot), the page of a
// compare file, and every bad-input case (exit status 2, one line, no page).
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {

// Two servers x 4 GPUs (idle 60 W, base 500 W, PUE 1.5), two days at 60 s intervals, three jobs of flat
// power (peak = valley) that start on arrival:
//   job 1: 4 GPUs x 300 W, 6 epochs of 1 h, 0-6 h     job 2: 2 GPUs x 200 W, 3 epochs, 0-3 h
//   job 3: 2 GPUs x 250 W, 2 epochs, day 2 10:00-12:00 (submit 122400 s)
// Facility power = 1.5 x (1000 W base + GPUs):
//   0-3 h:  1.5 x (1000 + 4x300 + 2x200 + 2x60) = 4080 W      3-6 h: 1.5 x (1000 + 1200 + 4x60) = 3660 W
//   day 2 10-12 h: 1.5 x (1000 + 2x250 + 6x60) = 2790 W     otherwise: 1.5 x (1000 + 8x60) = 2220 W
const std::string kTwoDays = R"(seed = 1
[fleet]
nodes = 2
gpus_per_node = 4
gpu_idle_w = 60
node_base_w = 500
[facility]
pue = 1.5
carbon_kg_per_kwh = 0.5
[workload]
horizon_s = 172800
[[workload.jobs]]
submit_s = 0
n_gpus = 4
epochs = 6
peak_w = 300
peak_s = 3000
valley_w = 300
valley_s = 600
[[workload.jobs]]
submit_s = 0
n_gpus = 2
epochs = 3
peak_w = 200
peak_s = 3000
valley_w = 200
valley_s = 600
[[workload.jobs]]
submit_s = 122400
n_gpus = 2
epochs = 2
peak_w = 250
peak_s = 3000
valley_w = 250
valley_s = 600
[output]
facility_interval_s = 60
node_interval_s = 3600
)";

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
  return n;
}

// The Python that draws the reports (found by CMake); the test fails, saying so, when there is none.
std::string python() {
  const std::string py = FLEETWATT_REPORT_PYTHON;
  INFO(
      "no Python 3 with matplotlib, numpy and h5py was found at configure time: run tools/install-deps.sh "
      "and re-run cmake");
  REQUIRE(!py.empty());
  return py;
}

// Nothing in the page is fetched from elsewhere: no src or href to another host or protocol.
void check_self_contained(const std::string& page) {
  static const std::regex remote(R"re((src|href)\s*=\s*["']?\s*(https?:|//|ftp:|file:))re",
                                 std::regex::icase);
  CHECK_FALSE(std::regex_search(page, remote));
  CHECK(page.find("<script") == std::string::npos);
}

}  // namespace

TEST_CASE("report explains itself with --help", "[cli][report]") {
  const auto r = run_command(fleetwatt_command() + " report --help");
  CHECK(r.exit_code == 0);
  for (const char* s : {"Usage", "result", "--output", "matplotlib"})
    CHECK(r.out.find(s) != std::string::npos);
}

TEST_CASE("report of a two-day run: figures, hand-calculated captions and metrics, a non-blank rendering",
          "[cli][report]") {
  (void)python();
  TempDir dir;
  const auto scenario = dir.write("two.toml", kTwoDays);
  const auto h5 = dir / "two.h5", html = dir / "two.html";
  REQUIRE(
      run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + h5.string()).exit_code ==
      0);
  const auto r = run_command(fleetwatt_command() + " report " + h5.string() + " -o " + html.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(html.string() + " (4 figures") != std::string::npos);  // says where the page is
  REQUIRE(std::filesystem::exists(html));
  const std::string page = slurp(html);
  check_self_contained(page);
  // Four figures, each an inline PNG: power over time, load-duration, daily profile, occupancy.
  CHECK(count_of(page, "<figure>") == 4);
  CHECK(count_of(page, "<img alt=\"\" src=\"data:image/png;base64,") == 4);
  for (const char* title :
       {"Facility power over time", "Load-duration curve", "Daily profile", "Job occupancy"})
    CHECK(page.find(title) != std::string::npos);
  // Peak 4080 W (0-3 h); mean = (4080x3 + 3660x3 + 2790x2 + 2220x40) / 48 = 2450 W.
  CHECK(page.find("Peak facility power 4.080 kW, mean 2.450 kW.") != std::string::npos);
  // CO2 = 117.6 kWh x 0.5 kg/kWh = 58.8 kg (energy below).
  CHECK(page.find("CO2: 58.80 kg in all.") != std::string::npos);
  // Load-duration over 48 h: 4080 W for 3 h (6.25 %), 3660 W to 12.5 %, 2790 W to 16.7 %, then 2220 W.
  CHECK(page.find("Exceeded 1 %: 4.080 kW, 10 %: 3.660 kW, 50 %: 2.220 kW.") != std::string::npos);
  // Hours 0-2: (4080 + 2220) / 2 = 3150 W, the highest mean; hour 6 is the first at the idle 2220 W.
  CHECK(page.find("Highest hourly mean 3.150 kW at 00:00, lowest 2.220 kW at 06:00. The band spans the "
                  "hourly means of the 2 days.") != std::string::npos);
  // Jobs 1 and 2 together at 0-3 h: 2 jobs, 4 + 2 = 6 GPUs of 8.
  CHECK(page.find("At most 2 jobs running and 6 GPUs allocated of 8; 3 of 3 jobs started, 0 still running at "
                  "the end.") != std::string::npos);
  // The metrics table: every scalar of /summary, new ones included without changing the report.
  fleetwatt::results::ResultReader result(h5);
  std::size_t summary_rows = 0;
  for (const auto& name : result.datasets())
    if (name.rfind("/summary/", 0) == 0 && result.doubles(name).size() == 1) {
      INFO(name);
      CHECK(page.find("<tr><td>" + name.substr(9) + "</td>") != std::string::npos);
      ++summary_rows;
    }
  CHECK(summary_rows >= 10);
  CHECK(count_of(page, "<tr><td>") == summary_rows);
  // Facility energy (4080x3 + 3660x3 + 2790x2 + 2220x40) Wh = 117.6 kWh; peak 4.080 kW; CO2 58.80 kg.
  CHECK(page.find("<td>facility_energy_J</td><td class=n>117.6</td><td>kWh</td>") != std::string::npos);
  CHECK(page.find("<td>peak_facility_W</td><td class=n>4.080</td><td>kW</td>") != std::string::npos);
  CHECK(page.find("<td>carbon_kg</td><td class=n>58.80</td><td>kg</td>") != std::string::npos);
  // The scenario text, HTML-escaped.
  CHECK(page.find("[[workload.jobs]]\nsubmit_s = 122400") != std::string::npos);

  // Rendered by headless Chromium: the screenshot has ink and colours (a blank page: 0 % and 1 colour).
  const std::string chromium = "/usr/bin/chromium";
  {
    INFO("Debian's chromium is needed to render the page: tools/install-deps.sh installs it");
    REQUIRE(std::filesystem::exists(chromium));
  }
  const auto shot = dir / "two.png";
  const auto c = run_command(
      "timeout 180 " + chromium +
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
      "--disable-component-update --disable-sync --user-data-dir=" +
      (dir / "chromium").string() + " --screenshot=" + shot.string() + " --window-size=1280,2400 file://" +
      html.string());
  INFO(c.err);
  REQUIRE(std::filesystem::exists(shot));
  const auto stats = run_command(
      python() + " " + (source_dir() / "tests/tools/screenshot_stats.py").string() + " " + shot.string());
  INFO(stats.err);
  REQUIRE(stats.exit_code == 0);
  double non_white = 0;
  int colours = 0;
  std::istringstream(stats.out) >> non_white >> colours;
  CHECK(non_white > 0.05);
  CHECK(colours > 100);
}

TEST_CASE(
    "report reads what other runs add: warm-up jobs, unfinished jobs, a clock, new metrics, a stored "
    "load-duration curve",
    "[cli][report]") {
  TempDir dir;
  const auto scenario = dir.write("two.toml", kTwoDays);
  const auto h5 = dir / "two.h5";
  REQUIRE(
      run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + h5.string()).exit_code ==
      0);
  // The two-day run's file, edited as later results look: job 1 started an hour before time 0 (a warm-up),
  // job 3 unfinished; time 0 is 07:00 at UTC+01:00 (06:00Z on 2026-01-01); /summary gains a 15-min peak
  // and its time, a NaN ramp and an integer count; /grid/load_duration_kW is 100 - k kW at k %. Runs now
  // write some of these themselves, so each is replaced rather than added.
  const auto edit = dir.write("edit.py", R"(import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    f["jobs/start_s"][0] = -3600.0
    f["jobs/end_s"][2] = np.nan
    f.attrs["start"] = "2026-01-01T07:00:00+01:00"
    f.attrs["start_unix_s"] = 1767225600 + 6 * 3600
    f.attrs["start_utc_offset_s"] = 3600
    for name, value, units in [("peak_15min_W", 4080.0, "W: highest 15-min mean"),
                               ("peak_15min_time_s", 3600.0, "s: start of that window"),
                               ("ramp_up_1h_W", np.nan, "W"), ("coincident_peak_hours", np.int64(7), "1")]:
        if name in f["summary"]:
            del f["summary"][name]
        f["summary"].create_dataset(name, data=value).attrs["units"] = units
    k = np.arange(101.0)
    for name, data, units in [("grid/load_duration_kW", 100.0 - k, "kW"), ("grid/load_duration_percent", k, "%")]:
        if name in f:
            del f[name]
        f.create_dataset(name, data=data).attrs["units"] = units
)");
  REQUIRE(run_command(python() + " " + edit.string() + " " + h5.string()).exit_code == 0);
  const auto r =
      run_command(fleetwatt_command() + " report " + h5.string() + " -o " + (dir / "two.html").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string page = slurp(dir / "two.html");
  // Job 1 counts from time 0, so the most is still jobs 1 and 2 together (6 GPUs); job 3 runs to the end.
  CHECK(page.find("At most 2 jobs running and 6 GPUs allocated of 8; 3 of 3 jobs started, 1 still running at "
                  "the end.") != std::string::npos);
  // Hours of the run's clock: simulated 0-3 h is 07:00-10:00 there, idle 2220 W first at 00:00 (17 h). The
  // run touches three clock days: 07:00-24:00, a whole day, 00:00-07:00.
  CHECK(
      page.find("Highest hourly mean 3.150 kW at 07:00, lowest 2.220 kW at 00:00. The band spans the hourly "
                "means of the 3 days.") != std::string::npos);
  // The stored curve: 100 - k kW exceeded k % of the time.
  CHECK(page.find("(from /grid/load_duration_kW). Exceeded 1 %: 99.00 kW, 10 %: 90.00 kW, 50 %: 50.00 kW.") !=
        std::string::npos);
  // New metrics appear in the table: in kW, as a clock reading (07:00 + 1 h), n/a for NaN, an integer.
  CHECK(page.find("<td>peak_15min_W</td><td class=n>4.080</td><td>kW</td>") != std::string::npos);
  CHECK(page.find("<td>peak_15min_time_s</td><td class=n>2026-01-01 08:00:00</td><td>clock UTC+01:00, start "
                  "2026-01-01T07:00:00+01:00</td>") != std::string::npos);
  CHECK(page.find("<td>ramp_up_1h_W</td><td class=n>n/a</td>") != std::string::npos);
  CHECK(page.find("<td>coincident_peak_hours</td><td class=n>7</td><td>1</td><td class=n>7</td>") !=
        std::string::npos);
}

TEST_CASE("report of a compare file: one panel per metric across the policies", "[cli][report]") {
  (void)python();
  TempDir dir;
  const auto scenario = dir.write("two.toml", kTwoDays);
  const auto h5 = dir / "cmp.h5";
  REQUIRE(run_command(fleetwatt_command() + " compare -q " + scenario.string() + " --policies fifo,sjf -o " +
                      h5.string())
              .exit_code == 0);
  // No -o: the page goes beside the result, named after it.
  const auto r = run_command(fleetwatt_command() + " report " + h5.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto html = dir / "cmp.html";
  CHECK(r.out.find(html.string() + " (2 figures") != std::string::npos);
  const std::string page = slurp(html);
  check_self_contained(page);
  CHECK(count_of(page, "<figure>") == 2);
  CHECK(page.find("One panel per metric of /comparison across the 2 policies (fifo, sjf).") !=
        std::string::npos);
  CHECK(page.find("Facility power by policy") != std::string::npos);
  fleetwatt::results::ResultReader result(h5);
  for (const auto& name : result.datasets())
    if (name.rfind("/comparison/", 0) == 0 && name != "/comparison/policy") {
      INFO(name);
      CHECK(page.find("<th>" + name.substr(12) + "<br>") != std::string::npos);
    }
  // Every job starts on arrival under both policies, so each row has the figures above: 117.6 kWh of
  // facility energy, a 4.080 kW peak, and 4.080 kW as p95 too (4080 W holds for 6.25 % of the time, more
  // than the top 5 %). The table's columns are read from its header.
  std::vector<std::string> columns;
  static const std::regex header(R"(<th>([A-Za-z0-9_]+)<br>)");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), header); it != std::sregex_iterator(); ++it)
    columns.push_back((*it)[1]);
  auto cell = [&](const std::string& policy, const std::string& column) {
    const auto row = page.find("<tr><td>" + policy + "</td>");
    REQUIRE(row != std::string::npos);
    const auto at = std::find(columns.begin(), columns.end(), column);
    REQUIRE(at != columns.end());
    std::size_t pos = row;
    for (auto i = columns.begin(); i <= at; ++i) pos = page.find("<td class=n>", pos + 1);
    return page.substr(pos + 12, page.find("</td>", pos) - pos - 12);
  };
  for (const char* policy : {"fifo", "sjf"}) {
    INFO(policy);
    CHECK(cell(policy, "facility_energy_J") == "117.6");
    CHECK(cell(policy, "peak_facility_W") == "4.080");
    CHECK(cell(policy, "p95_facility_W") == "4.080");
    CHECK(cell(policy, "jobs_done") == "3");
  }
}

TEST_CASE("report refuses bad input with status 2, one line, and no page", "[cli][report][bad-input]") {
  TempDir dir;
  const auto text = dir.write("notes.h5", "not HDF5\n");
  const auto foreign = dir / "foreign.h5";
  REQUIRE(run_command(python() + " -c \"import h5py; h5py.File('" + foreign.string() +
                      "', 'w').create_dataset('x', data=[1])\"")
              .exit_code == 0);
  const auto scenario = dir.write("two.toml", kTwoDays);
  const auto good = dir / "good.h5";
  REQUIRE(
      run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + good.string()).exit_code ==
      0);
  struct Case {
    std::string name, args, expected;
  };
  const std::vector<Case> cases = {
      {"missing file", (dir / "missing.h5").string() + " -o " + (dir / "p.html").string(),
       "missing.h5: file not found"},
      {"not HDF5", text.string() + " -o " + (dir / "p.html").string(), "notes.h5: not an HDF5 file"},
      {"not a fleetwatt result", foreign.string() + " -o " + (dir / "p.html").string(),
       "foreign.h5: not a fleetwatt result"},
      {"missing folder", good.string() + " -o " + (dir / "nowhere/p.html").string(),
       "-o: " + (dir / "nowhere/p.html").string() + ": folder"},
      {"folder", good.string() + " -o " + dir.path().string(), "is a folder"},
      {"the result itself", good.string() + " -o " + good.string(), "is the result this command reads"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const auto r = run_command(fleetwatt_command() + " report " + c.args);
    CHECK(r.exit_code == 2);
    INFO(r.err);
    CHECK(r.err.find("fleetwatt: error: ") == 0);
    CHECK(r.err.find(c.expected) != std::string::npos);
    CHECK(count_of(r.err, "\n") == 1);
    CHECK_FALSE(std::filesystem::exists(dir / "p.html"));
    CHECK_FALSE(std::filesystem::exists(dir / "nowhere"));
  }
  // Only the inputs are left: no page, no temporary file.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 4);
  // A Python that cannot be started is named (status 1: not the user's input).
  const auto r = run_command("FLEETWATT_PYTHON=/nonexistent/python3 " + fleetwatt_command() + " report " +
                             good.string() + " -o " + (dir / "p.html").string());
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("/nonexistent/python3") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "p.html"));
}
