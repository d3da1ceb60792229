// Simulated time: integer nanoseconds, conversions at the boundary, overflow refused.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "fleetwatt/sim/time.hpp"

using fleetwatt::sim::Duration;
using fleetwatt::sim::Time;

TEST_CASE("seconds convert to whole nanoseconds and back", "[time]") {
  CHECK(Duration::from_seconds(182.58).ns() == 182'580'000'000);
  CHECK(Duration::from_seconds(1e-9).ns() == 1);
  CHECK(Duration::from_seconds(0.4e-9).ns() == 0);
  CHECK(Time::from_seconds(86400).ns() == 86'400'000'000'000);
  CHECK(Time::from_ns(1'500'000'000).seconds() == 1.5);
}

TEST_CASE("a day of 188.99 s epochs sums exactly on the integer clock", "[time]") {
  // 457 epochs of 182.58 s + 6.41 s: a float clock accumulates rounding here, the integer clock cannot.
  Duration epoch = Duration::from_seconds(182.58) + Duration::from_seconds(6.41);
  Time t = Time::zero();
  for (int i = 0; i < 457; ++i) t = t + epoch;
  CHECK(t.ns() == 457LL * 188'990'000'000LL);
}

TEST_CASE("time arithmetic refuses to overflow", "[time]") {
  CHECK_THROWS_AS(Duration::max() + Duration::from_ns(1), std::overflow_error);
  CHECK_THROWS_AS(Duration::from_ns(1LL << 62) * 4, std::overflow_error);
  CHECK_THROWS_AS(Duration::from_seconds(1e12), std::out_of_range);  // ~31,700 years
  CHECK_THROWS_AS(Duration::from_seconds(std::numeric_limits<double>::quiet_NaN()), std::out_of_range);
}

TEST_CASE("times print as days and clock time", "[time]") {
  CHECK(fleetwatt::sim::format_time(Time::from_seconds(3723.5)) == "01:02:03.500");
  CHECK(fleetwatt::sim::format_time(Time::from_seconds(86400 + 60)) == "1d 00:01:00.000");
}
