// Tests for the text helpers the trace readers share (timestamps, CSV splitting, numbers).
#include <catch2/catch.hpp>

#include "../../workloads/src/trace_text.hpp"

using namespace fleetwatt::workloads::text;

TEST_CASE("timestamps are read as seconds since the Unix epoch", "[traces]") {
  // 2017-10-07 01:11:39 UTC: 17446 days after 1970-01-01 (date -u -d '2017-10-07' +%s = 1507334400).
  CHECK(*parse_timestamp("2017-10-07 01:11:39") == Approx(1507334400.0 + 3600 + 11 * 60 + 39).epsilon(0));
  CHECK(*parse_timestamp("2017-10-07T01:11:39Z") == *parse_timestamp("2017-10-07 01:11:39"));
  // An explicit +02:00 offset is two hours ahead of UTC.
  CHECK(*parse_timestamp("2022-10-20T08:20:00+02:00") == *parse_timestamp("2022-10-20 06:20:00"));
  CHECK(*parse_timestamp("2024-11-30T06:00:00.500Z") - *parse_timestamp("2024-11-30 06:00:00") ==
        Approx(0.5));
  CHECK(*parse_timestamp("2023-06-08 00:05") - *parse_timestamp("2023-06-08 00:00:00") == 300.0);
  // Leap day 2020-02-29 exists: 2020-03-01 is one day later.
  CHECK(*parse_timestamp("2020-03-01 00:00:00") - *parse_timestamp("2020-02-29 00:00:00") == 86400.0);
  CHECK_FALSE(parse_timestamp("None"));
  CHECK_FALSE(parse_timestamp("2017-13-07 01:11:39"));
  CHECK_FALSE(parse_timestamp("2017-10-07 01:11:39 PDT"));
}

TEST_CASE("CSV records split on commas outside double quotes", "[traces]") {
  const auto f = split_csv(R"(a, "b,c" ,"say ""hi""",,x)");
  REQUIRE(f.size() == 5);
  CHECK(f[0] == "a");
  CHECK(f[1] == "b,c");
  CHECK(f[2] == "say \"hi\"");
  CHECK(f[3].empty());
  CHECK(f[4] == "x");
}

TEST_CASE("numbers must fill the whole field", "[traces]") {
  CHECK(*parse_double("1e3") == 1000.0);
  CHECK(*parse_double(" -2.5 ") == -2.5);
  CHECK_FALSE(parse_double("12abc"));
  CHECK_FALSE(parse_double(""));
  CHECK_FALSE(parse_double("nan"));
  CHECK(*parse_int("4.0") == 4);
  CHECK_FALSE(parse_int("4.5"));
}
