// Simulated time: integer nanoseconds, conversions at the boundary, overflow refused.
#include <catch2/catch.hpp>
#include <limits>
#include <stdexcept>

#include "fleetwatt/core/time.hpp"

using fleetwatt::core::Duration;
using fleetwatt::core::Time;

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

TEST_CASE("subtraction is checked like addition", "[time]") {
  // INT64_MIN - 1 ns and INT64_MAX - (-1 ns) do not fit in int64: refused rather than wrapped.
  const Duration most_negative = Duration::from_ns(std::numeric_limits<std::int64_t>::min());
  CHECK_THROWS_AS(most_negative - Duration::from_ns(1), std::overflow_error);
  CHECK_THROWS_AS(Duration::max() - Duration::from_ns(-1), std::overflow_error);
  CHECK_THROWS_AS(Time::max() - Time::from_ns(-1), std::overflow_error);
  // 1 h - 1 min = 59 min = 3540 s = 3.54e12 ns.
  CHECK((Duration::from_seconds(3600) - Duration::from_seconds(60)).ns() == 3'540'000'000'000);
  CHECK((Time::from_seconds(10) - Time::from_seconds(12.5)).ns() == -2'500'000'000);
}

TEST_CASE("the clock spans about 292 years and stops exactly at its edge", "[time]") {
  // 2^63 ns = 9.223e18 ns = 292.3 years of 365.25 days.
  CHECK(Duration::max().seconds() / (365.25 * 86400) == Approx(292.27).epsilon(1e-4));
  // The last representable instant plus zero stays put; one more nanosecond overflows.
  CHECK((Time::max() + Duration::zero()) == Time::max());
  CHECK_THROWS_AS(Time::max() + Duration::from_ns(1), std::overflow_error);
  // 200 years (6.3e18 ns) converts; 300 years (9.47e18 ns) does not.
  CHECK_NOTHROW(Duration::from_seconds(200 * 365.25 * 86400));
  CHECK_THROWS_AS(Duration::from_seconds(300 * 365.25 * 86400), std::out_of_range);
  // Negative spans round to the nearest nanosecond too: -0.6 ns -> -1.
  CHECK(Duration::from_seconds(-0.6e-9).ns() == -1);
}

TEST_CASE("times print as days and clock time", "[time]") {
  CHECK(fleetwatt::core::format_time(Time::from_seconds(3723.5)) == "01:02:03.500");
  CHECK(fleetwatt::core::format_time(Time::from_seconds(86400 + 60)) == "1d 00:01:00.000");
}
