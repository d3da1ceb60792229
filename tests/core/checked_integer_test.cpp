// Float-to-integer conversion of parsed values: NaN, infinities and values outside the type or the caller's
// range are a located error at the key, never a cast (undefined behaviour); a fraction is truncated.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "fleetwatt/core/checked_integer.hpp"

using fleetwatt::core::checked_integer;
using fleetwatt::core::ConfigError;
using fleetwatt::core::integer_in_range;
using fleetwatt::core::SourceLocation;
using fleetwatt::core::TraceFormatError;

TEST_CASE("integer_in_range refuses NaN, infinities and values outside the type", "[core][checked_integer]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_FALSE(integer_in_range<std::int32_t>(nan));
  CHECK_FALSE(integer_in_range<std::int32_t>(inf));
  CHECK_FALSE(integer_in_range<std::int32_t>(-inf));
  CHECK_FALSE(integer_in_range<std::int32_t>(1e300));
  CHECK_FALSE(integer_in_range<std::int32_t>(-1e300));
  CHECK_FALSE(integer_in_range<std::int32_t>(2147483648.0));
  CHECK(*integer_in_range<std::int32_t>(2147483647.0) == 2147483647);
  CHECK(*integer_in_range<std::int32_t>(-2147483648.0) == std::numeric_limits<std::int32_t>::min());
  // 2^63 is one past int64's largest value, and the largest double below it converts exactly.
  CHECK_FALSE(integer_in_range<std::int64_t>(9223372036854775808.0));
  CHECK(*integer_in_range<std::int64_t>(std::nextafter(9223372036854775808.0, 0.0)) == 9223372036854774784LL);
  CHECK(*integer_in_range<std::uint64_t>(9223372036854775808.0) == 9223372036854775808ULL);
  CHECK_FALSE(integer_in_range<std::uint64_t>(18446744073709551616.0));
  CHECK_FALSE(integer_in_range<std::uint32_t>(-1.0));
  CHECK(*integer_in_range<std::uint32_t>(-0.5) == 0U);
  CHECK(*integer_in_range<std::int32_t>(-2.7) == -2);
  CHECK(*integer_in_range<std::size_t>(7.9) == 7U);
  CHECK_FALSE(integer_in_range<std::int32_t>(0.0, 1, 10));
  CHECK(*integer_in_range<std::int32_t>(10.0, 1, 10) == 10);
  CHECK_FALSE(integer_in_range<std::int32_t>(11.0, 1, 10));
}

TEST_CASE("checked_integer throws the reader's located error naming the key and the range",
          "[core][checked_integer]") {
  const SourceLocation where{"t.graphml", 4, 0};
  try {
    (void)checked_integer<std::int32_t>(1e300, where, "rack", -1, 10000000);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "t.graphml:4: rack: must be an integer from -1 to 10000000, got 1e+300");
  }
  try {
    (void)checked_integer<std::uint32_t, TraceFormatError>(std::nan(""), where, "gpus");
    FAIL("no error");
  } catch (const TraceFormatError& e) {
    CHECK(std::string(e.what()) == "t.graphml:4: gpus: must be an integer from 0 to 4294967295, got nan");
  }
  CHECK(checked_integer<std::int64_t>(-3.0, where, "x") == -3);
}
