// Tests for grid signals: step interpolation, exact integration against piecewise-constant power, and the
// real day-long signals in ../shared/data (expected sums computed independently with Python over the files).
#include <catch2/catch.hpp>

#include <sstream>

#include "fleetwatt/sim/power/grid_signal.hpp"
#include "test_support.hpp"

using namespace fleetwatt::sim;
using fleetwatt::core::TraceFormatError;

namespace {

GridSignal small(bool repeat = false) {
  std::istringstream in("time,value\n0,100\n600,200\n1800,50\n");
  GridSignalOptions o;
  o.repeat = repeat;
  return read_grid_signal_csv(in, "small.csv", o);
}

}  // namespace

TEST_CASE("a grid signal holds each value until the next sample", "[traces]") {
  const auto s = small();
  CHECK(s.at(-5.0) == 100.0);  // before the first sample: the first value
  CHECK(s.at(599.9) == 100.0);
  CHECK(s.at(600.0) == 200.0);
  CHECK(s.at(1e6) == 50.0);  // after the last sample: the last value
  // 100 x 600 + 200 x 1200 + 50 x 1800
  CHECK(s.integral(0.0, 3600.0) == 390000.0);
  CHECK(s.integral(300.0, 900.0) == 100.0 * 300 + 200.0 * 300);
}

TEST_CASE("power x signal is integrated exactly across both sets of breakpoints", "[traces]") {
  const auto s = small();
  SignalIntegrator in(s);
  in.add(0.0, 700.0, 1000.0);     // 1 kW over [0, 700): 100 x 600 + 200 x 100
  in.add(700.0, 2000.0, 2000.0);  // 2 kW over [700, 2000): 200 x 1100 + 50 x 200
  CHECK(in.total() == 1000.0 * 80000.0 + 2000.0 * 230000.0);
}

TEST_CASE("a repeating signal wraps with its span plus one step", "[traces]") {
  const auto s = small(true);
  // Samples 0, 600, 1800; the last step (1200 s) repeats: period 3000 s.
  CHECK(s.period_s() == 3000.0);
  CHECK(s.at(3000.0 + 700.0) == 200.0);
  CHECK(s.integral(0.0, 3000.0) == 100.0 * 600 + 200.0 * 1200 + 50.0 * 1200);
  CHECK(s.integral(0.0, 9000.0) == 3.0 * s.integral(0.0, 3000.0));
}

TEST_CASE("bad signal files name the line and column", "[traces]") {
  std::istringstream unordered("time,value\n0,1\n10,2\n5,3\n");
  try {
    (void)read_grid_signal_csv(unordered, "u.csv", {});
    FAIL("decreasing times accepted");
  } catch (const TraceFormatError& e) {
    CHECK(e.where().line == 4);
    CHECK(e.where().column == 1);
  }
  std::istringstream bad("time,value\n0,abc\n");
  CHECK_THROWS_AS(read_grid_signal_csv(bad, "b.csv", {}), TraceFormatError);
}

TEST_CASE("CAISO North 5-minute marginal carbon over its first day", "[traces][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto s =
      read_grid_signal_csv(data / "grid-carbon-vessim" / "watttime_example_CAISO_North_5min.csv", {});
  CHECK(s.times().size() == 8928);  // SOURCE.txt: 8,928 rows at 5 min
  CHECK(s.times()[1] == 300.0);
  // 1 MW for 24 h: sum of the first 288 values x 5/60 MWh = 10,013.958752 lb (Python over the file).
  SignalIntegrator in(s);
  in.add(0.0, 86400.0, 1.0e6);
  CHECK(in.total() / 3.6e9 == Approx(10013.958752489996).epsilon(1e-12));
  CHECK(s.mean(0.0, 3600.0) == Approx(433.5587069916667).epsilon(1e-12));
}

TEST_CASE("Electricity Maps MISO hourly lifecycle carbon, repeated", "[traces][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  GridSignalOptions o;
  o.repeat = true;
  o.unit = "g/kWh";
  const auto s =
      read_grid_signal_csv(data / "grid-carbon-zeus" / "electricitymaps_US-MIDW-MISO_hourly.csv", o);
  CHECK(s.values().front() == 501.0);  // 2024-11-30T06:00Z
  // 1 kW for the 48 hours: 1 kWh x each hourly value = 22,076 g in all; twice that over 96 h.
  SignalIntegrator in(s);
  in.add(0.0, 48 * 3600.0, 1000.0);
  CHECK(in.total() / kJoulesPerKwh == Approx(22076.0).epsilon(1e-12));
  CHECK(s.integral(0.0, 96 * 3600.0) * 1000.0 / kJoulesPerKwh == Approx(2 * 22076.0).epsilon(1e-12));
}

TEST_CASE("a signal can start at a chosen timestamp", "[traces][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  GridSignalOptions o;
  o.start = "2024-11-30T08:00:00Z";
  const auto s =
      read_grid_signal_csv(data / "grid-carbon-zeus" / "electricitymaps_US-MIDW-MISO_hourly.csv", o);
  CHECK(s.at(0.0) == 416.0);  // the third hourly value
  CHECK(s.at(-3600.0) == 419.0);
}

TEST_CASE("a signal value beyond +-1e6 after scaling is refused at its line and column",
          "[traces][bad-input]") {
  // A value of 1e308 once passed and made the run's carbon and cost NaN with exit status 0.
  auto error = [](const std::string& text, double scale) -> std::string {
    std::istringstream in(text);
    GridSignalOptions o;
    o.scale = scale;
    try {
      (void)read_grid_signal_csv(in, "sig.csv", o);
    } catch (const TraceFormatError& e) {
      return e.what();
    }
    return "(no error)";
  };
  CHECK(error("time,value\n0,100\n1800,1e308\n", 1.0) ==
        "sig.csv:3:2: value: 1e+308 (x scale 1) is outside +-1e+06: not a carbon intensity or price");
  // 2000 x 1000 = 2e6 after scaling; 1000 x 1000 = 1e6 is the bound itself and kept.
  CHECK(
      error("time,value\n0,2000\n", 1000.0).rfind("sig.csv:2:2: value: 2000 (x scale 1000) is outside", 0) ==
      0);
  CHECK(error("time,value\n0,1000\n60,-1000\n", 1000.0) == "(no error)");
}
