// The weather CSV reader: timestamps and seconds, wet bulb from relative humidity, and located errors.
#include <catch2/catch.hpp>

#include <sstream>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/sim/power/weather.hpp"
#include "test_support.hpp"

using namespace fleetwatt::sim;
using Catch::Matchers::WithinAbs;

namespace {
Weather read(const std::string& text, const std::string& start = {}) {
  std::istringstream in(text);
  return read_weather_csv(in, "w.csv", start);
}

std::string error_of(const std::string& text) {
  try {
    (void)read(text);
  } catch (const fleetwatt::core::InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("weather rows: ISO times from the first row or a given start, seconds as they are", "[weather]") {
  const auto w = read("# a comment\ntime,dry_bulb_c\n2017-01-01T01:00Z,14.2\n2017-01-01T02:00Z,-3.5\n");
  REQUIRE(w.size() == 2);
  CHECK(w.t_s == std::vector<double>{0.0, 3600.0});
  CHECK(w.dry_bulb_C == std::vector<double>{14.2, -3.5});
  CHECK_FALSE(w.has_wet_bulb());
  // Simulation time zero at midnight: the first row, one hour later, is at 3600 s.
  CHECK(read("time,dry_bulb_c\n2017-01-01T01:00Z,14.2\n", "2017-01-01T00:00Z").t_s.front() == 3600.0);
  CHECK(read("time,dry_bulb_c,wet_bulb_c\n0,20,15\n3600,22,16\n").wet_bulb_C == std::vector<double>{15, 16});
}

TEST_CASE("relative humidity gives the wet bulb by Stull's formula", "[weather]") {
  // Stull (2011)'s own worked example: T = 20 C, RH = 50 % -> Tw = 13.7 C.
  CHECK_THAT(wet_bulb_stull_C(20.0, 50.0), WithinAbs(13.7, 0.05));
  const auto w = read("time,dry_bulb_c,relative_humidity_pct\n0,20,50\n3600,30,100\n");
  CHECK_THAT(w.wet_bulb_C[0], WithinAbs(13.7, 0.05));
  CHECK_THAT(w.wet_bulb_C[1], WithinAbs(30.0, 0.35));  // saturated air: wet bulb = dry bulb within the fit
  CHECK(w.wet_bulb_C[1] <= 30.0);
}

TEST_CASE("bad weather rows are located errors", "[weather]") {
  CHECK_THAT(error_of("time,dry_bulb_c\n0,20\n3600,warm\n"), Catch::Contains("w.csv:3:6") &&
                                                                 Catch::Contains("dry_bulb_c") &&
                                                                 Catch::Contains("not a number"));
  CHECK_THAT(error_of("time,dry_bulb_c\n3600,20\n0,21\n"),
             Catch::Contains("w.csv:3:1") && Catch::Contains("increase"));
  CHECK_THAT(error_of("time,dry_bulb_c\n0,20\n3600,75\n"),
             Catch::Contains("w.csv:3:6") && Catch::Contains("outside"));
  CHECK_THAT(error_of("time,dry_bulb_c\n0,20\nnoon,21\n"),
             Catch::Contains("w.csv:3:1") && Catch::Contains("neither a timestamp nor seconds"));
  CHECK_THAT(error_of("time,dry_bulb_c\n0,20\n172800,21\n"),
             Catch::Contains("w.csv:3:1") && Catch::Contains("24 h"));
  CHECK_THAT(error_of("time,temperature\n0,20\n"),
             Catch::Contains("dry_bulb_c") && Catch::Contains("missing column"));
  CHECK_THAT(error_of("time,dry_bulb_c,relative_humidity_pct\n0,20,130\n"),
             Catch::Contains("w.csv:2:6") && Catch::Contains("relative_humidity_pct"));
  CHECK_THAT(error_of("time,dry_bulb_c,wet_bulb_c\n0,20,25\n"),
             Catch::Contains("w.csv:2:6") && Catch::Contains("above the dry bulb"));
  CHECK_THAT(error_of("time,dry_bulb_c\n"), Catch::Contains("no rows"));
}

TEST_CASE("the shipped year is whole: 8748 hourly rows of 2017", "[weather]") {
  // 8760 hours less the 12 the source lacks (examples/weather/SOURCE.md).
  const auto w = read_weather_csv(fleetwatt::test::source_dir() / "examples/weather/versailles-ky-2017.csv",
                                  "2017-01-01T00:00Z");
  CHECK(w.size() == 8748);
  CHECK(w.t_s.front() == 3600.0);
  CHECK(w.t_s.back() == 8760.0 * 3600.0);
}
