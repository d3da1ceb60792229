// The one timestamp parser: ISO 8601 and nvidia-smi forms, zone offsets applied, impossible dates refused.
#include <catch2/catch.hpp>

#include "fleetwatt/core/timestamp.hpp"

using namespace fleetwatt::core;

TEST_CASE("timestamps are read as seconds since the Unix epoch", "[timestamp]") {
  // 2017-10-07 01:11:39 UTC: 17446 days after 1970-01-01 (date -u -d '2017-10-07' +%s = 1507334400).
  CHECK(*parse_timestamp("2017-10-07 01:11:39") == Approx(1507334400.0 + 3600 + 11 * 60 + 39).epsilon(0));
  CHECK(*parse_timestamp("2017-10-07T01:11:39Z") == *parse_timestamp("2017-10-07 01:11:39"));
  CHECK(*parse_timestamp("2024-11-30T06:00:00.500Z") - *parse_timestamp("2024-11-30 06:00:00") ==
        Approx(0.5));
  CHECK(*parse_timestamp("2023-06-08 00:05") - *parse_timestamp("2023-06-08 00:00:00") == 300.0);
  // Leap day 2020-02-29 exists: 2020-03-01 is one day later.
  CHECK(*parse_timestamp("2020-03-01 00:00:00") - *parse_timestamp("2020-02-29 00:00:00") == 86400.0);
  CHECK(*parse_timestamp("1970-01-01T00:00:00Z") == 0.0);
  CHECK_FALSE(parse_timestamp("None"));
  CHECK_FALSE(parse_timestamp("2017-13-07 01:11:39"));
  CHECK_FALSE(parse_timestamp("2017-10-07 01:11:39 PDT"));
}

TEST_CASE("a zone offset says how far local time is ahead of UTC", "[timestamp]") {
  // 12:00 at +02:00 is 10:00 UTC; date -u -d '2024-05-01T10:00:00Z' +%s = 1714557600.
  CHECK(*parse_timestamp("2024-05-01T12:00:00+02:00") == 1714557600.0);
  CHECK(*parse_timestamp("2024-05-01T12:00:00+02:00") == *parse_timestamp("2024-05-01T10:00:00Z"));
  CHECK(*parse_timestamp("2022-10-20T08:20:00+02:00") == *parse_timestamp("2022-10-20 06:20:00"));
  // West of Greenwich: 07:30 at -05:30 is 13:00 UTC, crossing no date; 22:00 at -03:00 is 01:00 next day.
  CHECK(*parse_timestamp("2024-05-01T07:30:00-05:30") == *parse_timestamp("2024-05-01T13:00:00Z"));
  CHECK(*parse_timestamp("2024-02-29T22:00:00-03:00") == *parse_timestamp("2024-03-01T01:00:00Z"));
  // The compact forms +HHMM and +HH, and a blank before the zone.
  CHECK(*parse_timestamp("2024-05-01T12:00:00+0200") == 1714557600.0);
  CHECK(*parse_timestamp("2024-05-01T12:00:00+02") == 1714557600.0);
  CHECK(*parse_timestamp("2024-05-01 12:00:00 +02:00") == 1714557600.0);
  CHECK_FALSE(parse_timestamp("2024-05-01T12:00:00+2:00"));
  CHECK_FALSE(parse_timestamp("2024-05-01T12:00:00+24:00"));
}

TEST_CASE("nvidia-smi timestamps use slashes and milliseconds", "[timestamp]") {
  // 2023/02/20 08:38:16.296 = 19408 days (2023-02-20) x 86400 + 31096.296 s.
  CHECK(*parse_timestamp("2023/02/20 08:38:16.296") == Approx(19408.0 * 86400 + 8 * 3600 + 38 * 60 + 16.296));
  CHECK(*parse_timestamp("2023/02/20 08:38:17.296") - *parse_timestamp("2023/02/20 08:38:16.296") ==
        Approx(1.0).margin(1e-6));
  // Slashes and dashes are not mixed in one date.
  CHECK_FALSE(parse_timestamp("2023/02-20 08:38:16"));
}

TEST_CASE("impossible dates and times are refused", "[timestamp]") {
  CHECK_FALSE(parse_timestamp("2023-02-29 00:00:00"));  // 2023 is no leap year
  CHECK(parse_timestamp("2000-02-29 00:00:00"));        // 2000 is (divisible by 400)
  CHECK_FALSE(parse_timestamp("1900-02-29 00:00:00"));  // 1900 is not (divisible by 100)
  CHECK_FALSE(parse_timestamp("2023-04-31 00:00:00"));
  CHECK_FALSE(parse_timestamp("2023-04-30 24:00:00"));
  CHECK_FALSE(parse_timestamp("2023-04-30 23:60:00"));
  CHECK_FALSE(parse_timestamp("2023-04-30 23:59:00."));
}

TEST_CASE("days are counted in the proleptic Gregorian calendar", "[timestamp]") {
  CHECK(days_from_civil(1970, 1, 1) == 0);
  CHECK(days_from_civil(2000, 3, 1) == 11017);  // 30 years incl. 7 leap days + Jan, Feb 2000 (60 days)
  CHECK(days_from_civil(1969, 12, 31) == -1);
}
