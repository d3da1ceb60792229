// Weather-driven cooling end to end: the shipped year (summer afternoons cost more cooling than winter
// nights), constant cooling unchanged bit for bit, energy and carbon consistent with the series, and
// located errors for bad cooling keys and bad weather rows (exit status 2, no result file); batteries, and
// the one meter (grid import) every planner's figure is read from when there are some.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <numeric>
#include <sstream>
#include <tuple>
#include <vector>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using Catch::Matchers::WithinRel;

namespace {
/// Two hours of generated jobs on 4 servers at 60 s facility intervals, with these [facility] keys.
std::string small(const std::string& facility) {
  return small_vit_scenario(facility + "\ncarbon_kg_per_kwh = 0.5", 7200, 30, 60);
}
}  // namespace

TEST_CASE("the shipped year: summer-afternoon PUE above winter-night PUE", "[cli][facility]") {
  TempDir dir;
  const auto scenario = source_dir() / "examples/scenarios/year-weather.toml";
  auto r = run_command(fleetwatt_command() + " run " + scenario.string() + " -o " + (dir / "y.h5").string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("PUE") != std::string::npos);
  fleetwatt::results::ResultReader h5(dir / "y.h5");
  const auto t = h5.doubles("/facility/time_s");
  const auto pue = h5.doubles("/facility/pue");
  REQUIRE(t.size() == 8760);
  // Simulation time 0 is 2017-01-01T00:00Z; Kentucky is UTC-5 (UTC-4 in summer). Summer afternoons:
  // June-August (days 151-242), 19:00-21:00 UTC (14:00-16:00 local time in summer). Winter nights:
  // December-February (days 0-58 and 334-364), 08:00-10:00 UTC (03:00-05:00 local time).
  double summer = 0, winter = 0;
  int ns = 0, nw = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const int day = static_cast<int>(t[i] / 86400), hour = static_cast<int>(t[i] / 3600) % 24;
    if (day >= 151 && day <= 242 && hour >= 19 && hour <= 21) summer += pue[i], ++ns;
    if ((day <= 58 || day >= 334) && hour >= 8 && hour <= 10) winter += pue[i], ++nw;
  }
  summer /= ns;
  winter /= nw;
  INFO("summer afternoon PUE " << summer << ", winter night PUE " << winter);
  CHECK(summer > winter + 0.05);
  // The run's PUE is facility energy over IT energy, inside the hourly range.
  const double run_pue = h5.doubles("/summary/pue").at(0);
  CHECK_THAT(run_pue, WithinRel(h5.doubles("/summary/facility_energy_J").at(0) /
                                    h5.doubles("/summary/it_energy_J").at(0),
                                1e-12));
  CHECK(run_pue > h5.doubles("/summary/pue_min_interval").at(0));
  CHECK(run_pue < h5.doubles("/summary/pue_max_interval").at(0));
}

TEST_CASE("cooling = constant is today's facility series bit for bit", "[cli][facility]") {
  TempDir dir;
  auto a = dir.write("a.toml", small("pue = 1.3"));
  auto b = dir.write("b.toml", small("pue = 1.3\ncooling = \"constant\""));
  REQUIRE(
      run_command(fleetwatt_command() + " run " + a.string() + " -o " + (dir / "a.h5").string()).exit_code ==
      0);
  REQUIRE(
      run_command(fleetwatt_command() + " run " + b.string() + " -o " + (dir / "b.h5").string()).exit_code ==
      0);
  fleetwatt::results::ResultReader ha(dir / "a.h5"), hb(dir / "b.h5");
  for (const char* d : {"/facility/facility_power_W", "/facility/energy_J", "/facility/carbon_kg",
                        "/summary/facility_energy_J", "/summary/carbon_kg", "/summary/peak_facility_W"})
    CHECK(ha.doubles(d) == hb.doubles(d));
  // Constant cooling: IT x 1.3 in every interval.
  const auto it = ha.doubles("/facility/it_power_W"), f = ha.doubles("/facility/facility_power_W");
  for (std::size_t i = 0; i < it.size(); ++i) CHECK(f[i] == it[i] * 1.3);
}

TEST_CASE("weather cooling: energy, carbon and PUE series agree with the facility series",
          "[cli][facility]") {
  TempDir dir;
  // Half an hour at 5 C (liquid preset: free cooling), then 40 C (chiller at work).
  dir.write("w.csv", "time,dry_bulb_c\n0,5\n1800,40\n");
  auto s = dir.write("s.toml", small("cooling = \"weather\"\ndesign = \"liquid\"\nweather_csv = \"w.csv\""));
  auto r = run_command(fleetwatt_command() + " run " + s.string() + " -o " + (dir / "w.h5").string());
  REQUIRE(r.exit_code == 0);
  fleetwatt::results::ResultReader h5(dir / "w.h5");
  const auto f = h5.doubles("/facility/facility_power_W"), it = h5.doubles("/facility/it_power_W");
  const auto pue = h5.doubles("/facility/pue"), e = h5.doubles("/facility/energy_J");
  const auto kg = h5.doubles("/facility/carbon_kg");
  REQUIRE(f.size() == 120);
  double energy = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    energy += f[i] * 60.0;
    CHECK_THAT(pue[i], WithinRel(f[i] / it[i], 1e-12));
    CHECK_THAT(kg[i], WithinRel(f[i] * 60.0 / 3.6e6 * 0.5, 1e-9));  // 0.5 kg/kWh of the interval's energy
  }
  CHECK_THAT(e.back(), WithinRel(energy, 1e-9));
  CHECK_THAT(h5.doubles("/summary/carbon_kg").at(0), WithinRel(energy / 3.6e6 * 0.5, 1e-9));
  // The chiller's half hour: every interval after 1800 s has a higher PUE than every one before.
  const double before = *std::max_element(pue.begin(), pue.begin() + 30);
  const double after = *std::min_element(pue.begin() + 30, pue.end());
  CHECK(after > before);
}

TEST_CASE("bad cooling keys and bad weather rows: one located line, exit 2, no file", "[cli][facility]") {
  TempDir dir;
  dir.write("w.csv", "time,dry_bulb_c\n0,5\n3600,hot\n");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"cooling = \"weather\"\nweather_csv = \"w.csv\"", "w.csv:3:6: dry_bulb_c"},
      {"cooling = \"weather\"\nweather_csv = \"none.csv\"", "none.csv"},
      {"cooling = \"weather\"", "facility.weather_csv"},
      {"cooling = \"weather\"\nweather_csv = \"w.csv\"\nchiller_cop = 3", "s.toml:8:1: facility.chiller_cop"},
      {"pue = 1.2\nfan_pump_fraction = 0.1", "s.toml:7:1: facility.fan_pump_fraction"},
      {"cooling = \"solar\"", "s.toml:6:1: facility.cooling"},
      {"pue = 1.2\nweather_csv = \"w.csv\"", "s.toml:7:1: facility.weather_csv"},
  };
  for (const auto& [facility, expected] : cases) {
    INFO(facility);
    auto s = dir.write("s.toml", small(facility));
    auto r = run_command(fleetwatt_command() + " run " + s.string() + " -o " + (dir / "bad.h5").string());
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(expected));
    CHECK_FALSE(std::filesystem::exists(dir / "bad.h5"));
  }
}

namespace {
std::string with_battery(const std::string& battery, const std::string& grid) {
  return small_vit_scenario(
      "pue = 1.2\ncarbon_kg_per_kwh = 0.5\n[[facility.battery]]\n" + battery + "\n[grid]\n" + grid, 7200, 30,
      60);
}
}  // namespace

TEST_CASE("a peak_shave battery: import under the limit, energy balance, carbon on import",
          "[cli][battery]") {
  TempDir dir;
  // Facility demand peaks near 5.2 kW; a 4 kW limit with a 5 kWh, 3 kW battery.
  auto s = dir.write("b.toml", with_battery("energy_kwh = 5\npower_kw = 3\nround_trip_efficiency = 0.85\n"
                                            "mode = \"peak_shave\"",
                                            "import_limit_kw = 4"));
  auto r = run_command(fleetwatt_command() + " run " + s.string() + " -o " + (dir / "b.h5").string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("grid import") != std::string::npos);
  fleetwatt::results::ResultReader h5(dir / "b.h5");
  const auto demand = h5.doubles("/facility/facility_power_W"),
             import = h5.doubles("/facility/grid_import_W");
  const auto soc = h5.doubles("/facility/battery_soc"), battery = h5.doubles("/facility/battery_W");
  REQUIRE(import.size() == demand.size());
  double demand_J = 0, import_J = 0;
  for (std::size_t i = 0; i < import.size(); ++i) {
    CHECK_THAT(import[i], WithinRel(demand[i] - battery[i], 1e-12));
    // Wherever the battery was not empty at the interval's start, import holds the limit.
    const double soc_before = i == 0 ? 0.5 : soc[i - 1];
    if (soc_before > 0.2) CHECK(import[i] <= 4000.0 * (1 + 1e-12));
    demand_J += demand[i] * 60;
    import_J += import[i] * 60;
  }
  CHECK(*std::max_element(demand.begin(), demand.end()) > 4000.0);  // the limit binds
  // import = demand + stored change + losses (charge - discharge = stored change + losses).
  const double stored = h5.doubles("/summary/storage_change_J").at(0),
               loss = h5.doubles("/summary/storage_loss_J").at(0);
  CHECK(loss > 0.0);
  CHECK_THAT(import_J, WithinRel(demand_J + stored + loss, 1e-6));
  CHECK_THAT(h5.doubles("/summary/grid_import_J").at(0), WithinRel(import_J, 1e-9));
  // Carbon is charged on grid import: 0.5 kg/kWh.
  CHECK_THAT(h5.doubles("/summary/carbon_kg").at(0), WithinRel(import_J / 3.6e6 * 0.5, 1e-9));
}

namespace {
/// The peak_shave battery behind a 4-kW import limit, at 1-s intervals for 2 h, carbon 0.5 kg/kWh.
std::string peak_shave_scenario() {
  return small_vit_scenario(
      "pue = 1.2\ncarbon_kg_per_kwh = 0.5\n[[facility.battery]]\n"
      "energy_kwh = 5\npower_kw = 3\nround_trip_efficiency = 0.85\n"
      "mode = \"peak_shave\"\n[grid]\nimport_limit_kw = 4",
      7200, 30, 1);
}
}  // namespace

TEST_CASE("with batteries every figure a planner copies is the meter's: grid import",
          "[cli][battery][meter]") {
  // The peak_shave battery above at 1-s intervals. The grid metrics, the power-quality figures, the printed
  // summary and the export's grid_import_kW are all of /facility/grid_import_W, computed here by hand from
  // that series; carbon per row over import energy is the signal's constant 0.5 kg/kWh.
  TempDir dir;
  auto s = dir.write("b.toml", peak_shave_scenario());
  const auto file = dir / "b.h5";
  auto r = run_command(fleetwatt_command() + " run " + s.string() + " -o " + file.string());
  REQUIRE(r.exit_code == 0);
  fleetwatt::results::ResultReader h5(file);
  CHECK(h5.string_attribute("/summary", "meter") == "/facility/grid_import_W");
  CHECK(h5.string_attribute("/power_quality", "meter") == "/facility/grid_import_W");
  const auto import = h5.doubles("/facility/grid_import_W"),
             demand = h5.doubles("/facility/facility_power_W");
  REQUIRE(import.size() == 7200);
  // 15-min windows from 0 (the default start is midnight): 900 samples each.
  double peak15 = 0.0;
  for (std::size_t w = 0; w < 8; ++w)
    peak15 =
        std::max(peak15, std::accumulate(import.begin() + static_cast<std::ptrdiff_t>(w * 900),
                                         import.begin() + static_cast<std::ptrdiff_t>((w + 1) * 900), 0.0) /
                             900.0);
  CHECK_THAT(h5.doubles("/summary/peak_15min_W").at(0), WithinRel(peak15, 1e-9));
  // The 1-s ramps: the largest rise and fall between consecutive samples.
  double up = 0.0, down = 0.0;
  for (std::size_t i = 1; i < import.size(); ++i) {
    up = std::max(up, import[i] - import[i - 1]);
    down = std::max(down, import[i - 1] - import[i]);
  }
  CHECK_THAT(h5.doubles("/power_quality/ramp_up_1s_MW").at(0), WithinRel(up / 1e6, 1e-9));
  CHECK_THAT(h5.doubles("/power_quality/ramp_down_1s_MW").at(0), WithinRel(down / 1e6, 1e-9));
  // The summary prints the import's peak and 1-s ramp, and labels the demand as such.
  const double peak = *std::max_element(import.begin(), import.end());
  CHECK(peak < *std::max_element(demand.begin(), demand.end()));  // the battery shaved the peak
  CHECK_THAT(r.out, Catch::Contains("meter                       grid import"));
  CHECK_THAT(r.out, Catch::Contains(fmt::format(
                        "peak grid import            {:.1f} kW (highest interval mean)", peak / 1e3)));
  CHECK_THAT(r.out, Catch::Contains(fmt::format("max import ramp per 1 s     up {:.3f} MW, down {:.3f} MW",
                                                up / 1e6, down / 1e6)));
  CHECK_THAT(r.out, Catch::Contains("peak facility demand"));
  // The 15-min export: grid_import_kW is the import's window mean, and CO2 per kWh imported is 0.5.
  const auto csv = dir / "b.csv";
  REQUIRE(
      run_command(fleetwatt_command() + " export " + file.string() + " --interval 15min -o " + csv.string())
          .exit_code == 0);
  std::ifstream in(csv);
  std::string row;
  std::getline(in, row);
  CHECK(row ==
        "timestamp_iso8601,time_s,it_power_kW,facility_power_kW,grid_import_kW,carbon_kg,cost_currency");
  double export_peak_kW = 0.0;
  for (std::size_t w = 0; std::getline(in, row); ++w) {
    std::vector<std::string> f;
    std::stringstream ss(row);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    REQUIRE(f.size() == 7);
    const double import_kW = std::stod(f[4]), carbon_kg = std::stod(f[5]);
    const double mean = std::accumulate(import.begin() + static_cast<std::ptrdiff_t>(w * 900),
                                        import.begin() + static_cast<std::ptrdiff_t>((w + 1) * 900), 0.0) /
                        900.0;
    CHECK_THAT(import_kW * 1e3, WithinRel(mean, 1e-4));  // the CSV's digits
    CHECK_THAT(carbon_kg / (import_kW * 0.25), WithinRel(0.5, 1e-4));
    export_peak_kW = std::max(export_peak_kW, import_kW);
  }
  CHECK_THAT(export_peak_kW * 1e3, WithinRel(peak15, 1e-4));
}

TEST_CASE("a comparison on a battery scenario reads the meter as the run does: grid import",
          "[cli][battery][meter][compare]") {
  // The same scenario run once and compared under its own policy (fifo): the two are the same simulation,
  // so the comparison's meter figures must be the run's, all of grid import.
  TempDir dir;
  auto s = dir.write("b.toml", peak_shave_scenario());
  const auto run = dir / "b.h5", cmp = dir / "c.h5";
  REQUIRE(run_command(fleetwatt_command() + " run -q " + s.string() + " -o " + run.string()).exit_code == 0);
  const auto c =
      run_command(fleetwatt_command() + " compare " + s.string() + " --policies fifo -o " + cmp.string());
  REQUIRE(c.exit_code == 0);
  CHECK_THAT(c.out, Catch::Contains("note: meter: grid import (batteries)"));
  fleetwatt::results::ResultReader a(run), b(cmp);
  const auto import = a.doubles("/facility/grid_import_W");
  CHECK(b.doubles("/policies/fifo/facility/grid_import_W") == import);
  CHECK(b.string_attribute("/policies/fifo/power_quality", "meter") == "/facility/grid_import_W");
  CHECK(b.string_attribute("/policies/fifo/summary", "meter") == "/facility/grid_import_W");
  for (const char* figure : {"/summary/peak_15min_W", "/summary/ramp_up_1min_W", "/summary/load_factor"})
    CHECK_THAT(b.doubles(std::string("/policies/fifo") + figure).at(0),
               WithinRel(a.doubles(figure).at(0), 1e-12));
  CHECK_THAT(b.doubles("/policies/fifo/power_quality/ramp_up_1s_MW").at(0),
             WithinRel(a.doubles("/power_quality/ramp_up_1s_MW").at(0), 1e-12));
  // p95 of the import, by hand: linear interpolation between the sorted values around 0.95 x (n - 1).
  auto sorted = import;
  std::sort(sorted.begin(), sorted.end());
  const double pos = 0.95 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const double p95 = sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
  CHECK_THAT(b.doubles("/comparison/p95_facility_W").at(0), WithinRel(p95, 1e-12));
  const auto policies = run_command(fleetwatt_command() + " export " + cmp.string() + " --interval 15min");
  REQUIRE(policies.exit_code == 0);
  CHECK_THAT(policies.out,
             Catch::StartsWith("timestamp_iso8601,time_s,fifo_facility_power_kW,fifo_grid_import_kW,"
                               "fifo_carbon_kg,fifo_cost_currency\n"));
  // The report's power panel of the comparison draws each policy's import, the meter.
  const auto page = dir / "c.html";
  REQUIRE(run_command(fleetwatt_command() + " report " + cmp.string() + " -o " + page.string()).exit_code ==
          0);
  std::ifstream html(page);
  const std::string text((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Catch::Contains("<h2>Grid import by policy</h2>"));
  CHECK_THAT(text,
             Catch::Contains("Grid import (the meter, after the batteries) over time under each policy"));
}

TEST_CASE("a ramp_limit battery holds the import change per minute", "[cli][battery]") {
  TempDir dir;
  auto s = dir.write("r.toml", with_battery("energy_kwh = 20\npower_kw = 10\nmode = \"ramp_limit\"\n"
                                            "ramp_limit_kw_per_min = 0.5",
                                            ""));
  auto r = run_command(fleetwatt_command() + " run " + s.string() + " -o " + (dir / "r.h5").string());
  REQUIRE(r.exit_code == 0);
  fleetwatt::results::ResultReader h5(dir / "r.h5");
  const auto import = h5.doubles("/facility/grid_import_W"), soc = h5.doubles("/facility/battery_soc");
  for (std::size_t i = 1; i < import.size(); ++i)
    if (soc[i] > 0.01 && soc[i] < 0.99) CHECK(std::fabs(import[i] - import[i - 1]) <= 500.0 * (1 + 1e-9));
}

TEST_CASE("bad battery keys: one located line, exit 2, no file", "[cli][battery]") {
  TempDir dir;
  const std::vector<std::tuple<std::string, std::string, std::string>> cases{
      {"energy_kwh = 5\npower_kw = 3", "", "grid.import_limit_kw"},
      {"energy_kwh = 5\npower_kw = 3\nmode = \"arbitrage\"", "import_limit_kw = 4",
       "b.toml:11:1: facility.battery"},
      {"energy_kwh = 5", "import_limit_kw = 4", "facility.battery"},
      {"energy_kwh = 5\npower_kw = 3\nsoc_initial = 1.5", "import_limit_kw = 4", "b.toml:11:1"},
      {"energy_kwh = 5\npower_kw = 3\nmode = \"ramp_limit\"", "", "ramp_limit_kw_per_min"},
      {"energy_kwh = 5\npower_kw = 3\nvoltage_v = 800", "import_limit_kw = 4", "b.toml:11:1"},
  };
  for (const auto& [battery, grid, expected] : cases) {
    INFO(battery);
    auto s = dir.write("b.toml", with_battery(battery, grid));
    auto r = run_command(fleetwatt_command() + " run " + s.string() + " -o " + (dir / "bad.h5").string());
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(expected));
    CHECK_FALSE(std::filesystem::exists(dir / "bad.h5"));
  }
}
