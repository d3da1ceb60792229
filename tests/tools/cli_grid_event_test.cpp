// Grid events ([[grid.event]] and the [facility] ride-through keys) end to end, on a small fleet at 1-s
// intervals: a dip shorter than the ride-through changes nothing; a longer one takes the IT load off the
// grid at once (import = facility - IT), the UPS carries it for its autonomy and the rest is dark until
// the return, which climbs at the configured ramp; demand = import + UPS + dark to the joule; carbon is on
// import; the running jobs are interrupted when the UPS runs out. Every figure is recomputed here from the
// stored series. Bad keys are refused with a located line.
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using fleetwatt::results::ResultReader;

namespace {

/// Four 2-GPU servers kept busy by long ViT jobs, a 2-hour window at 1-s intervals.
std::string scenario(const std::string& facility_keys, const std::string& events) {
  return R"(seed = 4
[fleet]
nodes = 4
gpus_per_node = 2
[facility]
pue = 1.3
carbon_kg_per_kwh = 0.4
)" + facility_keys +
         R"(
[workload]
horizon_s = 7200
[[workload.jobs]]
submit_s = 0
n_gpus = 4
epochs = 400
class = "vit"
[[workload.jobs]]
submit_s = 0
n_gpus = 4
epochs = 400
class = "vit"
[output]
facility_interval_s = 1
)" + events;
}

const std::string kEvents = R"(
[[grid.event]]
at_s = 3600
duration_s = 1
kind = "fault"
[[grid.event]]
at_s = 6000
duration_s = 0.01
)";

double sum(const std::vector<double>& v, std::size_t from, std::size_t to) {
  return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(from),
                         v.begin() + static_cast<std::ptrdiff_t>(to), 0.0);
}

}  // namespace

TEST_CASE(
    "a fault the campus cannot ride through: import drops to the facility overhead, the UPS and then "
    "the dark carry the IT load, and it returns at the ramp",
    "[cli][grid_event]") {
  TempDir dir;
  // UPS 30 s; the grid is back at 3601 s, the campus returns 60 s later at 6 kW/min = 100 W/s.
  const auto s = dir.write("e.toml", scenario("ups_autonomy_s = 30\nreturn_delay_s = 60\n"
                                              "return_ramp_kw_per_min = 6",
                                              kEvents));
  const auto file = dir / "e.h5";
  const auto r = run_command(fleetwatt_command() + " run " + s.string() + " -o " + file.string());
  REQUIRE(r.exit_code == 0);
  const ResultReader h5(file);
  const auto imp = h5.doubles("/facility/grid_import_W"), fac = h5.doubles("/facility/facility_power_W"),
             it = h5.doubles("/facility/it_power_W"), ups = h5.doubles("/facility/ups_W"),
             dark = h5.doubles("/facility/unserved_W"), carbon = h5.doubles("/facility/carbon_kg");
  REQUIRE(imp.size() == 7200);
  // Before the fault, and at the 10-ms dip (ridden through): import is the facility's power.
  for (std::size_t k : {0u, 3599u, 5999u, 6000u, 6001u, 7199u}) CHECK(imp[k] == fac[k]);
  // Off the grid from 3600 s to 3661 s: import is what is not IT (cooling and the rest).
  for (std::size_t k = 3600; k < 3661; ++k) {
    INFO(k);
    CHECK_THAT(imp[k], WithinRel(fac[k] - it[k], 1e-12));
    // The UPS serves the first 30 s; after it, the IT load is dark.
    CHECK_THAT((k < 3630 ? ups[k] : dark[k]), WithinRel(it[k], 1e-12));
    CHECK((k < 3630 ? dark[k] : ups[k]) == 0.0);
  }
  // The return from 3661 s at 100 W/s: the interval [3661 + j, 3662 + j) takes back 100 (j + 1/2) W on
  // average while 100 (j + 1) W is under the IT load (the interrupted jobs' idle GPUs, a few hundred W),
  // and all of it once the ramp has passed it.
  std::size_t j = 0;
  for (; 100.0 * (j + 1) <= it[3661 + j]; ++j) {
    INFO(3661 + j);
    CHECK_THAT(imp[3661 + j] - (fac[3661 + j] - it[3661 + j]), WithinAbs(100.0 * (j + 0.5), 1e-6));
  }
  CHECK(j >= 3);
  CHECK(imp[3661 + j + 1] == fac[3661 + j + 1]);
  // Energy balance, every interval and in all: demand = import + UPS + dark.
  for (std::size_t k = 0; k < imp.size(); ++k) CHECK_THAT(fac[k], WithinAbs(imp[k] + ups[k] + dark[k], 1e-6));
  const double demand_J = h5.doubles("/summary/facility_energy_J").at(0);
  const double import_J = h5.doubles("/summary/grid_import_J").at(0),
               ups_J = h5.doubles("/summary/ups_energy_J").at(0),
               dark_J = h5.doubles("/summary/unserved_energy_J").at(0);
  CHECK_THAT(import_J + ups_J + dark_J, WithinRel(demand_J, 1e-12));
  CHECK_THAT(ups_J, WithinRel(sum(it, 3600, 3630), 1e-12));
  CHECK_THAT(import_J, WithinRel(sum(imp, 0, imp.size()), 1e-12));
  // Carbon is charged on import: 0.4 kg/kWh of every interval's import.
  for (std::size_t k : {100u, 3600u, 3640u, 3662u})
    CHECK_THAT(carbon[k], WithinRel(imp[k] / 3.6e6 * 0.4, 1e-9));
  CHECK_THAT(h5.doubles("/summary/carbon_kg").at(0), WithinRel(import_J / 3.6e6 * 0.4, 1e-9));
  // The figures a planner copies.
  CHECK(h5.integers("/summary/grid_events").at(0) == 2);
  CHECK(h5.integers("/summary/grid_events_ridden_through").at(0) == 1);
  CHECK(h5.doubles("/summary/time_off_grid_s").at(0) == 61.0);
  CHECK(h5.doubles("/summary/return_ramp_W_per_s").at(0) == 100.0);
  std::vector<double> off(imp.size());
  for (std::size_t k = 0; k < imp.size(); ++k) off[k] = ups[k] + dark[k];
  CHECK(h5.doubles("/summary/load_lost_W").at(0) == *std::max_element(off.begin(), off.end()));
  // Both jobs ran an epoch when the UPS ran out at 3630 s: both are interrupted, and only then ([failures]
  // is not enabled, so no random failure adds to them).
  CHECK(h5.integers("/summary/grid_interruptions").at(0) == 2);
  CHECK(h5.integers("/summary/interruptions").at(0) == 2);
  // The meter of every planner's figure is the import.
  CHECK(h5.string_attribute("/summary", "meter") == "/facility/grid_import_W");
  CHECK_THAT(r.out, Catch::Contains("meter                       grid import (grid events)"));
  CHECK_THAT(r.out,
             Catch::Contains("grid events                 2 (1 ridden through); IT load off the grid 61 s"));
  CHECK_THAT(r.out, Catch::Contains("2 jobs interrupted"));
}

TEST_CASE("a UPS that outlasts the outage leaves nothing dark and interrupts no job", "[cli][grid_event]") {
  TempDir dir;
  const auto s = dir.write("e.toml", scenario("ups_autonomy_s = 600\nreturn_delay_s = 60\n"
                                              "return_ramp_kw_per_min = 60",
                                              kEvents));
  const auto file = dir / "e.h5";
  REQUIRE(run_command(fleetwatt_command() + " run -q " + s.string() + " -o " + file.string()).exit_code == 0);
  const ResultReader h5(file);
  CHECK(h5.doubles("/summary/unserved_energy_J").at(0) == 0.0);
  CHECK(h5.integers("/summary/grid_interruptions").at(0) == 0);
  CHECK_FALSE(h5.has("/summary/interruptions"));  // no [failures] needed, none enabled
  CHECK(h5.doubles("/summary/ups_energy_J").at(0) > 0.0);
}

TEST_CASE("bad grid-event keys: one located line, exit 2, no file", "[cli][grid_event]") {
  TempDir dir;
  struct Case {
    std::string facility, events, expected;
  };
  const std::vector<Case> cases = {
      {"", "\n[[grid.event]]\nat_s = 10\nduration_s = 1\nkind = \"brownout\"\n",
       "grid.event[0].kind: 'brownout' is not dip or fault"},
      {"", "\n[[grid.event]]\nat_s = 10\n", "grid.event[0].duration_s: missing"},
      // Shorter than the clock's nanosecond, it was an event of no time on the clock.
      {"", "\n[[grid.event]]\nat_s = 10\nduration_s = 1e-320\n",
       "grid.event[0].duration_s: must be at least 1e-09"},
      {"", "\n[[grid.event]]\nat_s = 9000\nduration_s = 1\n",
       "grid.event.at_s: 9000 s is not before the horizon"},
      {"", "\n[[grid.event]]\nat_s = 10\nduration_s = 5\n[[grid.event]]\nat_s = 12\nduration_s = 1\n",
       "starts before the event above ends"},
      {"return_ramp_kw_per_min = 0", "", "return_ramp_kw_per_min"},
      {"[[facility.battery]]\nenergy_kwh = 5\npower_kw = 3\nmode = \"ramp_limit\"\nramp_limit_kw_per_min = 1",
       "\n[[grid.event]]\nat_s = 10\nduration_s = 1\n",
       "grid.event: with [[facility.battery]] is not modelled"},
  };
  for (const auto& c : cases) {
    INFO(c.expected);
    const auto s = dir.write("bad.toml", scenario(c.facility, c.events));
    const auto out = dir / "bad.h5";
    const auto r = run_command(fleetwatt_command() + " run -q " + s.string() + " -o " + out.string());
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.expected));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(out));
  }
}

TEST_CASE("a region puts one grid event at every site, each on its own clock, and sums the sites' meters",
          "[cli][grid_event][region]") {
  TempDir dir;
  dir.write("s.toml", scenario("ups_autonomy_s = 600\nreturn_delay_s = 60\nreturn_ramp_kw_per_min = 6", ""));
  // Site a starts at 00:00Z, site b at 00:00-01:00 (01:00Z); the fault at 01:30Z is 5400 s into a's window
  // and 1800 s into b's.
  const auto region = dir.write("r.toml", R"(name = "two"
[region]
interval_s = 60
[[region.grid_event]]
at = "2026-01-01T01:30:00Z"
duration_s = 1
kind = "fault"
[[site]]
name = "a"
scenario = "s.toml"
[[site]]
name = "b"
scenario = "s.toml"
set = ["output.start = \"2026-01-01T00:00:00-01:00\""]
)");
  const auto file = dir / "r.h5";
  REQUIRE(
      run_command(fleetwatt_command() + " run -q " + region.string() + " -o " + file.string()).exit_code ==
      0);
  for (const auto& [site, at] : {std::pair{"a", 5400u}, std::pair{"b", 1800u}}) {
    INFO(site);
    const ResultReader h5(dir / "r.h5.sites" / (std::string(site) + ".h5"));
    CHECK(h5.integers("/summary/grid_events").at(0) == 1);
    const auto imp = h5.doubles("/facility/grid_import_W"), fac = h5.doubles("/facility/facility_power_W"),
               it = h5.doubles("/facility/it_power_W");
    CHECK(imp[at - 1] == fac[at - 1]);
    CHECK_THAT(imp[at], WithinRel(fac[at] - it[at], 1e-12));
  }
  // The region's total is the sites' meters: on the common base (01:00Z to 02:00Z, a's 3600 s to 7200 s),
  // the minute of the fault holds a's import, not its demand.
  const ResultReader r(file);
  CHECK(r.string_attribute("/region", "meter") == "a: /facility/grid_import_W; b: /facility/grid_import_W");
  const ResultReader a(dir / "r.h5.sites" / "a.h5");
  const auto a_import = a.doubles("/facility/grid_import_W");
  const auto per_site = r.matrix("/region/site_facility_power_W");
  // Minute 30 of the common base is a's seconds [5400, 5460).
  CHECK_THAT(per_site.at(30, 0), WithinRel(sum(a_import, 5400, 5460) / 60, 1e-12));
  // A bad instant is refused with its location.
  dir.write("bad.toml",
            "[[region.grid_event]]\nat = \"half past one\"\nduration_s = 1\n[[site]]\nname = \"a\"\n"
            "scenario = \"s.toml\"\n");
  const auto bad = run_command(fleetwatt_command() + " run -q " + (dir / "bad.toml").string() + " -o " +
                               (dir / "bad.h5").string());
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("region.grid_event[0].at: 'half past one' is not an instant"));
}
