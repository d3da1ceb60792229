// `fleetwatt report`: a page per kind of file, each rendered by headless Chromium into a non-blank screenshot
// and checked through its figures' ids, captions and axes facts (the comment fleetwatt_report.py writes
// before each figure): a two-day run (hand-calculated captions and metrics, constant series drawn as
// constant), a run shorter than a day (an hourly profile), a battery run (grid import against demand and the
// limit), a 1-s interval run (the 1-s ramp zoom, power-quality bands), a compare file (every metric drawn or
// listed with its reason), a region and a sweep index; and every bad-input case (exit status 2, one line, no
// page).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <tuple>

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

// The figures' facts by id: the JSON comment fleetwatt_report.py writes before each <figure>.
std::map<std::string, nlohmann::json> figures_of(const std::string& page) {
  std::map<std::string, nlohmann::json> out;
  const std::string open = "<!-- fleetwatt-figure ", close = " --><figure id=\"";
  for (auto at = page.find(open); at != std::string::npos; at = page.find(open, at + 1)) {
    const auto end = page.find(close, at);
    REQUIRE(end != std::string::npos);
    auto facts = nlohmann::json::parse(page.substr(at + open.size(), end - at - open.size()));
    const auto id_from = end + close.size();
    const std::string id = page.substr(id_from, page.find('"', id_from) - id_from);
    CHECK(facts["id"] == id);
    out[id] = facts;
  }
  CHECK(out.size() == count_of(page, "<figure "));
  return out;
}

// The ids of a page's figures, in order.
std::vector<std::string> ids_of(const std::map<std::string, nlohmann::json>& figures,
                                const std::string& page) {
  std::vector<std::pair<std::size_t, std::string>> at;
  for (const auto& [id, facts] : figures) at.emplace_back(page.find("<figure id=\"" + id + "\">"), id);
  std::sort(at.begin(), at.end());
  std::vector<std::string> ids;
  for (const auto& [pos, id] : at) ids.push_back(id);
  return ids;
}

// No axis of any figure shows an offset or a multiplier beside its ticks ("1e-13+4e-1").
void check_no_offsets(const std::map<std::string, nlohmann::json>& figures) {
  for (const auto& [id, facts] : figures)
    for (const auto& ax : facts["axes"]) {
      INFO(id << ": " << ax.dump());
      CHECK(ax["xoffset"] == "");
      CHECK(ax["yoffset"] == "");
    }
}

// The caption of figure `id`, HTML as written.
std::string caption_of(const std::string& page, const std::string& id) {
  const auto at = page.find("<figure id=\"" + id + "\">");
  REQUIRE(at != std::string::npos);
  const auto from = page.find("<figcaption>", at) + 12;
  return page.substr(from, page.find("</figcaption>", from) - from);
}

// A value as the page writes it: four significant digits, no exponent.
std::string four_digits(double x) {
  const int digits = x == 0 ? 0 : std::max(0, 3 - static_cast<int>(std::floor(std::log10(std::fabs(x)))));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

// Runs `fleetwatt report` on `h5` into `html` and returns the page.
std::string report_page(const std::filesystem::path& h5, const std::filesystem::path& html) {
  const auto r = run_command(fleetwatt_command() + " report " + h5.string() + " -o " + html.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string page = slurp(html);
  check_self_contained(page);
  return page;
}

// Renders the page with headless Chromium (1280 px wide, the first `height` px) and checks that the
// screenshot has ink and colours (a blank page: 0 % non-white and 1 colour).
void check_rendered(const TempDir& dir, const std::filesystem::path& html, int height = 2400) {
  const std::string chromium = "/usr/bin/chromium";
  {
    INFO("Debian's chromium is needed to render the page: tools/install-deps.sh installs it");
    REQUIRE(std::filesystem::exists(chromium));
  }
  const auto shot = dir / (html.stem().string() + ".png");
  const auto c = run_command(
      "timeout 180 " + chromium +
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
      "--disable-component-update --disable-sync --user-data-dir=" +
      (dir / "chromium").string() + " --screenshot=" + shot.string() + " --window-size=1280," +
      std::to_string(height) + " file://" + html.string());
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

// Runs a scenario (with extra flags) into `h5`.
void run_scenario(const std::filesystem::path& scenario, const std::filesystem::path& h5,
                  const std::string& flags = "") {
  const auto r =
      run_command(fleetwatt_command() + " run -q " + scenario.string() + " " + flags + " -o " + h5.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

std::vector<double> doubles(const std::filesystem::path& h5, const std::string& name) {
  return fleetwatt::results::ResultReader(h5).doubles(name);
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
  run_scenario(scenario, h5);
  const auto r = run_command(fleetwatt_command() + " report " + h5.string() + " -o " + html.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(html.string() + " (5 figures") != std::string::npos);  // says where the page is
  REQUIRE(std::filesystem::exists(html));
  const std::string page = slurp(html);
  check_self_contained(page);
  // Five figures, each an inline PNG; a 60 s series has no 1-s ramp to zoom on and no power-quality band
  // under its Nyquist frequency (1/120 Hz), so those two are listed with the reason instead.
  const auto figures = figures_of(page);
  CHECK(ids_of(figures, page) ==
        std::vector<std::string>{"power", "pue", "load-duration", "daily-profile", "occupancy"});
  CHECK(count_of(page, "<img alt=\"\" src=\"data:image/png;base64,") == 5);
  for (const char* title :
       {"Facility power over time", "PUE over time", "Load-duration curve", "Daily profile", "Job occupancy"})
    CHECK(page.find(title) != std::string::npos);
  CHECK(page.find("<li id=\"omitted-zoom\">Step waveform around the largest 1-s ramp: omitted (the stored "
                  "facility interval (60.00 s) is longer than 1 s)</li>") != std::string::npos);
  CHECK(page.find("<li id=\"omitted-power-quality\">Power-quality bands: omitted (every band is at or above "
                  "the Nyquist frequency (0.008333 Hz) of the 60.00 s facility interval)</li>") !=
        std::string::npos);
  check_no_offsets(figures);
  // Constant series drawn as constant: the CO2 intensity is the scenario's 0.5 kg/kWh in every interval and
  // PUE its 1.5, each on an axis from 0 to twice the value (not a magnified rounding error).
  const auto& power_axes = figures.at("power")["axes"];
  REQUIRE(power_axes.size() == 3);
  CHECK(power_axes[2]["ylabel"].get<std::string>().find("CO2 / kWh of facility energy") == 0);
  CHECK(power_axes[2]["ylim"][0] == 0.0);
  CHECK(power_axes[2]["ylim"][1].get<double>() == Approx(1.0).epsilon(1e-9));
  CHECK(figures.at("pue")["axes"][0]["ylim"][0] == 0.0);
  CHECK(figures.at("pue")["axes"][0]["ylim"][1].get<double>() == Approx(3.0).epsilon(1e-9));
  CHECK(caption_of(page, "pue") ==
        "Facility power over IT power per interval: from 1.500 to 1.500; facility energy over IT energy "
        "1.500.");
  // Peak 4080 W (0-3 h); mean = (4080x3 + 3660x3 + 2790x2 + 2220x40) / 48 = 2450 W.
  CHECK(page.find("Peak facility power 4.080 kW, mean 2.450 kW.") != std::string::npos);
  // CO2 = 117.6 kWh x 0.5 kg/kWh = 58.8 kg (energy below).
  CHECK(page.find("CO2: 58.80 kg in all.") != std::string::npos);
  // Load-duration over 48 h: 4080 W for 3 h (6.25 %), 3660 W to 12.5 %, 2790 W to 16.7 %, then 2220 W.
  CHECK(page.find("Exceeded 1 %: 4.080 kW, 10 %: 3.660 kW, 50 %: 2.220 kW.") != std::string::npos);
  // Hours 0-2: (4080 + 2220) / 2 = 3150 W, the highest mean; hour 6 is the first at the idle 2220 W.
  CHECK(page.find("Highest hourly mean 3.150 kW at 00:00, lowest 2.220 kW at 06:00. The band spans the "
                  "hourly means of the 2 days.") != std::string::npos);
  // Jobs 1 and 2 together at 0-3 h: 2 jobs, 4 + 2 = 6 GPUs of 8; the panel spans the 48 h from 0.
  CHECK(page.find("At most 2 jobs running and 6 GPUs allocated of 8; 3 of 3 jobs started, 0 still running at "
                  "the end.") != std::string::npos);
  CHECK(figures.at("occupancy")["axes"][0]["xlim"] == nlohmann::json::array({0.0, 48.0}));
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
  check_rendered(dir, html);
}

TEST_CASE("report of a run shorter than a day: an hourly profile of its span", "[cli][report]") {
  TempDir dir;
  const auto scenario = dir.write("two.toml", kTwoDays);
  const auto h5 = dir / "six.h5";
  run_scenario(scenario, h5, "--set workload.horizon_s=21600");
  const std::string page = report_page(h5, dir / "six.html");
  const auto figures = figures_of(page);
  CHECK(ids_of(figures, page) ==
        std::vector<std::string>{"power", "pue", "load-duration", "hourly-profile", "occupancy"});
  check_no_offsets(figures);
  // Six clock hours from 00:00: 4080 W in hours 0-2, 3660 W in hours 3-5 (job 1 alone); the axis spans them.
  CHECK(caption_of(page, "hourly-profile") ==
        "The run is shorter than a day (6.000 h): mean facility power in each of the 6 clock hours it spans "
        "(the first and last may be partial). Highest 4.080 kW at 00:00, lowest 3.660 kW at 03:00.");
  CHECK(figures.at("hourly-profile")["axes"][0]["xlim"] == nlohmann::json::array({0.0, 6.0}));
  CHECK(figures.at("occupancy")["axes"][0]["xlim"] == nlohmann::json::array({0.0, 6.0}));
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
  // The two-day run's file, edited as later results look: job 1 started an hour before time 0 (a warm-up), a
  // fourth job (8 GPUs) ran from -2 h to -1 h, wholly in the warm-up, job 3 unfinished; time 0 is 07:00 at
  // UTC+01:00 (06:00Z on 2026-01-01); /summary gains a 15-min peak and its time, a NaN ramp and an integer
  // count; /grid/load_duration_kW is 100 - k kW at k %. Runs now write some of these themselves, so each is
  // replaced rather than added.
  const auto edit = dir.write("edit.py", R"(import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    start, end, n = f["jobs/start_s"][:], f["jobs/end_s"][:], f["jobs/n_gpus"][:]
    start[0], end[2] = -3600.0, np.nan
    for name, data in [("start_s", np.append(start, -7200.0)), ("end_s", np.append(end, -3600.0)),
                       ("n_gpus", np.append(n, 8))]:
        del f["jobs"][name]
        f["jobs"].create_dataset(name, data=data)
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
  // Job 1 counts from time 0 and the job over by then not at all, so the most is still jobs 1 and 2 together
  // (6 GPUs), never fewer than none, on an axis from time 0 to 48 h; job 3 runs to the end.
  CHECK(page.find("At most 2 jobs running and 6 GPUs allocated of 8; 4 of 4 jobs started, 1 still running at "
                  "the end.") != std::string::npos);
  const auto figures = figures_of(page);
  for (const auto& ax : figures.at("occupancy")["axes"]) {
    CHECK(ax["xlim"] == nlohmann::json::array({0.0, 48.0}));
    CHECK(ax["ylim"][0] == 0.0);
  }
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

TEST_CASE("report of a compare file: every metric drawn across the policies or listed with its reason",
          "[cli][report]") {
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
  const auto figures = figures_of(page);
  CHECK(ids_of(figures, page) == std::vector<std::string>{"policies", "policy-power"});
  check_no_offsets(figures);
  CHECK(page.find("Facility power by policy") != std::string::npos);
  // Each metric is a panel when some policy has a value other than 0, else one line saying why; read here
  // from the file itself. Every metric is in the table either way.
  fleetwatt::results::ResultReader result(h5);
  std::size_t metrics = 0, drawn = 0;
  for (const auto& name : result.datasets())
    if (name.rfind("/comparison/", 0) == 0 && name != "/comparison/policy") {
      const std::string metric = name.substr(12);
      INFO(metric);
      CHECK(page.find("<th>" + metric + "<br>") != std::string::npos);
      const auto values = result.doubles(name);
      const bool empty =
          std::all_of(values.begin(), values.end(), [](double v) { return std::isnan(v) || v == 0.0; });
      CHECK(count_of(page, "<li id=\"omitted-metric-" + metric + "\">" + metric + ": omitted (") ==
            (empty ? 1U : 0U));
      ++metrics;
      drawn += empty ? 0 : 1;
    }
  CHECK(drawn >= 10);
  CHECK(drawn < metrics);  // a 60 s series has no 1-s ramps or power-quality bands
  CHECK(caption_of(page, "policies") ==
        "One panel per metric of /comparison across the 2 policies (fifo, sjf); " + std::to_string(drawn) +
            " of " + std::to_string(metrics) + " metrics drawn, the others listed below with the reason.");
  CHECK(figures.at("policies")["axes"].size() == drawn);
  // A NaN metric says why, from the policy's own /power_quality units (a band share: 1/120 Hz Nyquist).
  CHECK(page.find("band_share_1_5Hz: omitted (NaN for every policy: band at or above Nyquist, or no "
                  "fluctuation; facility interval 60.00 s, Nyquist 0.008333 Hz)") != std::string::npos);
  CHECK(page.find("ramp_up_1s_W: omitted (NaN for every policy: window shorter than the interval, or fewer "
                  "than two windows; facility interval 60.00 s)") != std::string::npos);
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
  check_rendered(dir, html);
}

TEST_CASE("report of a battery run: grid import is the meter, against demand and the import limit",
          "[cli][report][battery]") {
  TempDir dir;
  // A 5 kWh, 3 kW peak-shaving battery under a 4 kW import limit; demand peaks above it.
  const auto scenario =
      dir.write("b.toml", small_vit_scenario("pue = 1.2\ncarbon_kg_per_kwh = 0.5\n[[facility.battery]]\n"
                                             "energy_kwh = 5\npower_kw = 3\nround_trip_efficiency = 0.85\n"
                                             "mode = \"peak_shave\"\n[grid]\nimport_limit_kw = 4",
                                             7200, 30, 60));
  const auto h5 = dir / "b.h5", html = dir / "b.html";
  run_scenario(scenario, h5);
  const std::string page = report_page(h5, html);
  const auto figures = figures_of(page);
  CHECK(ids_of(figures, page) ==
        std::vector<std::string>{"power", "battery", "pue", "load-duration", "hourly-profile", "occupancy"});
  check_no_offsets(figures);
  CHECK(page.find("<h2>Power over time</h2>") != std::string::npos);
  // The captions' figures, from the series (60 s intervals, 7200 s: a plain mean).
  const auto import = doubles(h5, "/facility/grid_import_W"),
             demand = doubles(h5, "/facility/facility_power_W");
  const auto soc = doubles(h5, "/facility/battery_soc");
  double mean = 0;
  for (const double w : import) mean += w / static_cast<double>(import.size());
  const double peak_import = *std::max_element(import.begin(), import.end());
  const double peak_demand = *std::max_element(demand.begin(), demand.end());
  REQUIRE(peak_demand > 4000.0);  // the limit binds
  CHECK(caption_of(page, "power")
            .find("Peak grid import " + four_digits(peak_import / 1e3) + " kW, mean " +
                  four_digits(mean / 1e3) + " kW; peak facility demand " + four_digits(peak_demand / 1e3) +
                  " kW. CO2 and cost are charged on grid import.") != std::string::npos);
  // CO2 is charged on import at the constant 0.5 kg/kWh: a constant intensity, on an axis from 0 to 1.
  const auto& power_axes = figures.at("power")["axes"];
  REQUIRE(power_axes.size() == 3);
  CHECK(power_axes[2]["ylabel"].get<std::string>().find("CO2 / kWh of grid import") == 0);
  CHECK(power_axes[2]["ylim"][0] == 0.0);
  CHECK(power_axes[2]["ylim"][1].get<double>() == Approx(1.0).epsilon(1e-9));
  CHECK(figures.at("load-duration")["axes"][0]["ylabel"] == "grid import (kW)");
  const std::string battery = caption_of(page, "battery");
  CHECK(battery.find("with the import limit 4.000 kW, exceeded during 0 min;") != std::string::npos);
  CHECK(battery.find("state of charge, from " + four_digits(*std::min_element(soc.begin(), soc.end()) * 100) +
                     " % to " + four_digits(*std::max_element(soc.begin(), soc.end()) * 100) + " %.") !=
        std::string::npos);
  const auto& battery_axes = figures.at("battery")["axes"];
  REQUIRE(battery_axes.size() == 3);
  CHECK(battery_axes[2]["ylim"] == nlohmann::json::array({0.0, 100.0}));
  check_rendered(dir, html);
}

TEST_CASE("report of a 0.1-s run: the step waveform around the largest 1-s ramp, power-quality bands",
          "[cli][report]") {
  TempDir dir;
  // The shipped LLM campus (0.1 s facility intervals) for 5 min. Its carbon factor, 0.4 kg/kWh, gives an
  // intensity that differs from 0.4 by rounding only: matplotlib labels such an axis "1e-13+4e-1".
  const auto h5 = dir / "fine.h5", html = dir / "fine.html";
  run_scenario(source_dir() / "examples/scenarios/llm-campus.toml", h5, "--set workload.horizon_s=300");
  const std::string page = report_page(h5, html);
  const auto figures = figures_of(page);
  CHECK(ids_of(figures, page) == std::vector<std::string>{"power", "pue", "zoom", "load-duration",
                                                          "hourly-profile", "occupancy", "power-quality"});
  check_no_offsets(figures);
  const auto& power_axes = figures.at("power")["axes"];
  REQUIRE(power_axes.size() == 3);
  CHECK(power_axes[2]["ylim"][0] == 0.0);
  CHECK(power_axes[2]["ylim"][1].get<double>() == Approx(0.8).epsilon(1e-9));
  // The largest rise between consecutive 1-s means (10 intervals each) of the series, as the file's own
  // power-quality figure too.
  const auto w = doubles(h5, "/facility/facility_power_W"), t = doubles(h5, "/facility/time_s");
  REQUIRE(w.size() == 3000);
  std::vector<double> means(300, 0.0);
  for (std::size_t i = 0; i < w.size(); ++i) means[i / 10] += w[i] / 10.0;
  std::size_t k = 1;
  for (std::size_t i = 1; i < means.size(); ++i)
    if (means[i] - means[i - 1] > means[k] - means[k - 1]) k = i;
  const double rise = means[k] - means[k - 1];
  CHECK(rise == Approx(doubles(h5, "/power_quality/ramp_up_1s_MW").at(0) * 1e6).epsilon(1e-9));
  const std::string value = rise >= 1e6   ? four_digits(rise / 1e6) + " MW"
                            : rise >= 1e3 ? four_digits(rise / 1e3) + " kW"
                                          : four_digits(rise) + " W";
  CHECK(
      caption_of(page, "zoom")
          .find("(0.1000 s intervals), two minutes around the largest rise between consecutive 1-s means: " +
                value + " per 1 s, into the second starting at " + four_digits(t[10 * k]) + " s.") !=
      std::string::npos);
  // Two minutes around it (less at the run's edges), in seconds from the rise.
  const auto& xlim = figures.at("zoom")["axes"][0]["xlim"];
  CHECK(xlim[0].get<double>() <= -1.0);
  CHECK(xlim[1].get<double>() >= 1.0);
  CHECK(xlim[1].get<double>() - xlim[0].get<double>() <= 120.0 + 1e-9);
  // Each band's share as stored (n/a at or above the 0.5 Hz Nyquist frequency).
  const std::string pq = caption_of(page, "power-quality");
  const std::vector<std::pair<std::string, std::string>> bands = {
      {"0p01_0p1Hz", "0.01-0.1 Hz"}, {"0p1_1Hz", "0.1-1 Hz"}, {"1_5Hz", "1-5 Hz"}, {"5_20Hz", "5-20 Hz"}};
  for (const auto& [name, label] : bands) {
    const double share = doubles(h5, "/power_quality/band_share_" + name).at(0);
    INFO(label);
    CHECK(pq.find(label + ": " + (std::isnan(share) ? "n/a" : four_digits(share * 100) + " %")) !=
          std::string::npos);
  }
  CHECK(figures.at("power-quality")["axes"][0]["ylim"] == nlohmann::json::array({0.0, 100.0}));
  check_rendered(dir, html);
}

TEST_CASE("report of a region: each site's power and the coincident total", "[cli][report][region]") {
  TempDir dir;
  dir.write("two.toml", kTwoDays);
  // Two sites of the two-day fleet over 6 h, the second at PUE 2: both peak over 0-3 h, at
  // 1.5 x 2720 W = 4080 W and 2 x 2720 W = 5440 W, so the region peaks at 9520 W at time 0.
  const auto region = dir.write("pair.toml", R"(name = "pair"
[[site]]
name = "a"
scenario = "two.toml"
set = ["workload.horizon_s = 21600"]
[[site]]
name = "b"
scenario = "two.toml"
set = ["workload.horizon_s = 21600", "facility.pue = 2.0"]
)");
  const auto h5 = dir / "pair.h5", html = dir / "pair.html";
  run_scenario(region, h5);
  const std::string page = report_page(h5, html);
  const auto figures = figures_of(page);
  CHECK(ids_of(figures, page) == std::vector<std::string>{"region-power", "sites"});
  check_no_offsets(figures);
  CHECK(
      caption_of(page, "region-power")
          .find(
              "Coincident peak 9.520 kW at 2026-01-01 00:00 UTC; sum of the sites&#x27; own peaks 9.520 kW, "
              "coincidence factor 1.000.") != std::string::npos);
  CHECK(caption_of(page, "sites").find("Each summary figure of the 2 sites (a, b);") == 0);
  CHECK(page.find("<td>coincident_peak_W</td><td class=n>9.520</td><td>kW</td>") != std::string::npos);
  for (const char* site : {"<td>a</td>", "<td>b</td>"}) CHECK(page.find(site) != std::string::npos);
  check_rendered(dir, html);
}

TEST_CASE("report of a sweep index: the members with their grid values and figures", "[cli][report][sweep]") {
  TempDir dir;
  const auto scenario = dir.write("two.toml", kTwoDays);
  const auto h5 = dir / "sweep.h5", html = dir / "sweep.html";
  const auto r =
      run_command(fleetwatt_command() + " sweep -q " + scenario.string() +
                  " --set workload.horizon_s=21600 --grid 'facility.pue=[1.5,2.0]' -o " + h5.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string page = report_page(h5, html);
  const auto figures = figures_of(page);
  CHECK(ids_of(figures, page) == std::vector<std::string>{"members"});
  check_no_offsets(figures);
  CHECK(caption_of(page, "members").find("Each summary figure of the 2 members (pue=1.5, pue=2.0);") == 0);
  CHECK(page.find("<th>facility.pue</th>") != std::string::npos);
  // Over 0-6 h: peak 4080 W at PUE 1.5 (2720 W of IT) and 5440 W at PUE 2; means (4080 + 3660) / 2 = 3870 W
  // and 2 x (2720 + 2440) / 2 = 5160 W.
  auto row = [&](const std::string& pue) {
    const auto at = page.find("<tr><td>" + pue + "</td>");
    REQUIRE(at != std::string::npos);
    return page.substr(at, page.find("</tr>", at) - at);
  };
  for (const auto& [pue, peak, mean] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"1.5", "4.080", "3.870"}, {"2.0", "5.440", "5.160"}}) {
    INFO(pue);
    CHECK(row(pue).find("<td class=n>" + peak + "</td>") != std::string::npos);
    CHECK(row(pue).find("<td class=n>" + mean + "</td>") != std::string::npos);
  }
  check_rendered(dir, html);
}

TEST_CASE("report of every shipped scenario: every panel drawn with a real axis or listed with its reason",
          "[cli][report][scenarios]") {
  // No screenshot here (the page kinds above have theirs): the facts of each figure. Every axis has a
  // range (no empty panel), no offset noise, and every panel left out says why.
  TempDir dir;
  std::size_t scenarios = 0;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() / "examples/scenarios")) {
    if (e.path().extension() != ".toml") continue;
    const std::string name = e.path().stem().string();
    INFO(name);
    const auto h5 = dir / (name + ".h5");
    run_scenario(e.path(), h5);
    const std::string page = report_page(h5, dir / (name + ".html"));
    const auto figures = figures_of(page);
    CHECK(figures.size() >= 5);
    CHECK(figures.count("power") == 1);
    check_no_offsets(figures);
    for (const auto& [id, facts] : figures)
      for (const auto& ax : facts["axes"]) {
        INFO(id << ": " << ax.dump());
        CHECK(ax["ylim"][0].get<double>() < ax["ylim"][1].get<double>());
        CHECK(ax["xlim"][0].get<double>() < ax["xlim"][1].get<double>());
      }
    // A panel left out is a line with its reason: "<li id="omitted-...">Title: omitted (why)</li>".
    for (auto at = page.find("<li id=\"omitted-"); at != std::string::npos;
         at = page.find("<li id=\"omitted-", at + 1)) {
      const std::string line = page.substr(at, page.find("</li>", at) - at);
      INFO(line);
      CHECK(line.find(": omitted (") != std::string::npos);
    }
    std::filesystem::remove(h5);
    ++scenarios;
  }
  CHECK(scenarios >= 8);
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
