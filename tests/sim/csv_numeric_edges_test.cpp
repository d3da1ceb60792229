// Every numeric field of the grid signal and weather CSVs at ±1e300, NaN, ±inf, 2^63, 2^64, 2^32 and a
// subnormal (numeric_edges.hpp): a located error (file, line, column) or a series on the simulated clock's
// input range with values in their plausible range.
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"
#include "fleetwatt/sim/power/weather.hpp"
#include "numeric_edges.hpp"

using namespace fleetwatt;
using test::Fields;

namespace {
// A series time the engine will meet on its integer-nanosecond clock.
bool on_clock(double s) {
  return std::isfinite(s) && std::fabs(s) <= core::kMaxInputSeconds;
}
}  // namespace

TEST_CASE("the grid signal's time and value at the numeric edges are located or on the clock",
          "[grid-signal][bad-input][edges]") {
  // Values beyond kMaxSignalMagnitude (1e6 g/kWh or per MWh) are refused; a subnormal one reads as about
  // zero. A time is refused beyond the clock's input range from the signal's start (1e300 s once made a
  // series whose sums overflow); the edited row is the second, after one at 0.
  const Fields fields = {{"time", "3600"}, {"value", "400"}};
  const std::string text = "time,value\n0,300\n{time},{value}\n7200000,500\n";
  {
    std::istringstream in(test::fill(text, fields, "", ""));
    REQUIRE(sim::read_grid_signal_csv(in, "signal.csv", {}).times().size() == 3);
  }
  for (const std::string& field : test::field_names(fields)) {
    for (const auto& value : test::numeric_edges()) {
      INFO(field << " = " << value);
      std::istringstream in(test::fill(text, fields, field, value));
      sim::GridSignal got;
      if (const auto error =
              test::input_error_of([&] { got = sim::read_grid_signal_csv(in, "signal.csv", {}); })) {
        // A time that does not increase is refused at the row after it.
        const bool next_row = field == "time" && error->rfind("signal.csv:4:", 0) == 0;
        test::check_located(*error, "signal.csv", next_row ? 4 : 3, field);
        continue;
      }
      for (const double t : got.times()) CHECK(on_clock(t));
      for (const double v : got.values()) CHECK(std::fabs(v) <= sim::kMaxSignalMagnitude);
      CHECK(std::isfinite(got.integral(0.0, 7200000.0)));
    }
  }
}

TEST_CASE("every numeric column of the weather CSV at the numeric edges is located or in range",
          "[weather][bad-input][edges]") {
  // Temperatures are refused outside -90..60 degC and humidity outside 0..100 %; a subnormal reads as about
  // zero. Times must increase by at most 24 h a row, which refuses every far time.
  for (const std::string third : {"wet_bulb_c", "relative_humidity_pct"}) {
    const Fields fields = {
        {"time", "3600"}, {"dry_bulb_c", "20"}, {third, third == "wet_bulb_c" ? "-5" : "50"}};
    const std::string text =
        "time,dry_bulb_c," + third + "\n0,20,10\n{time},{dry_bulb_c},{" + third + "}\n7200,21,10\n";
    {
      std::istringstream in(test::fill(text, fields, "", ""));
      REQUIRE(sim::read_weather_csv(in, "weather.csv").t_s.size() == 3);
    }
    for (const std::string& field : test::field_names(fields)) {
      for (const auto& value : test::numeric_edges()) {
        INFO(field << " = " << value);
        std::istringstream in(test::fill(text, fields, field, value));
        sim::Weather got;
        if (const auto error =
                test::input_error_of([&] { got = sim::read_weather_csv(in, "weather.csv"); })) {
          // A time that does not increase is refused at the row after it.
          const bool next_row = field == "time" && error->rfind("weather.csv:4:", 0) == 0;
          test::check_located(*error, "weather.csv", next_row ? 4 : 3, field);
          continue;
        }
        for (const double t : got.t_s) CHECK(on_clock(t));
        for (const double c : got.dry_bulb_C) CHECK((c >= -90.0 && c <= 60.0));
        for (const double c : got.wet_bulb_C) CHECK((c >= -90.0 && c <= 60.0));
      }
    }
  }
}
