// Hand-printed JSON pieces: escaped strings, and numbers that are always JSON (null where not finite).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "fleetwatt/core/json_text.hpp"

using fleetwatt::core::json_number;
using fleetwatt::core::json_string;

TEST_CASE("json_number writes null for NaN and the infinities, the shortest round trip otherwise",
          "[core][json]") {
  // predict --json once printed inf and -nan, which no JSON parser reads.
  CHECK(json_number(std::nan("")) == "null");
  CHECK(json_number(-std::nan("")) == "null");
  CHECK(json_number(std::numeric_limits<double>::infinity()) == "null");
  CHECK(json_number(-std::numeric_limits<double>::infinity()) == "null");
  CHECK(json_number(0.1) == "0.1");
  CHECK(json_number(1e300) == "1e+300");
  CHECK(json_number(-3.0) == "-3");
  CHECK(json_string("a\"b\\\n") == "\"a\\\"b\\\\\\u000a\"");
}
