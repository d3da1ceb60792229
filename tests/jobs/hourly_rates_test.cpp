// A trace's rate by hour of the day against counts written by hand: two days of a plain trace whose hour h
// holds 10 (h + 1) requests, a dated (azure2023) trace whose first request is at 18:00 UTC, the generator
// fed the measured curve, and the refusal of a trace shorter than a day.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "fleetwatt/jobs/hourly_rates.hpp"
#include "fleetwatt/jobs/request_generator.hpp"

namespace fleetwatt::jobs {
namespace {

/// `days` days from the clock's hour 0 on: hour h of each day holds per_hour(h) requests, evenly spaced.
template <class PerHour>
std::string plain_days(int days, PerHour per_hour) {
  std::ostringstream out;
  out << "time_s,input_tokens,output_tokens\n";
  for (int d = 0; d < days; ++d)
    for (int h = 0; h < 24; ++h) {
      const int n = per_hour(h);
      for (int i = 0; i < n; ++i) out << (d * 24 + h) * 3600.0 + 3600.0 * i / n << ",100,10\n";
    }
  return out.str();
}

TEST_CASE("hourly_rates: two days of a plain trace give each hour's share of the requests",
          "[jobs][serving]") {
  std::istringstream in(plain_days(2, [](int h) { return 10 * (h + 1); }));
  const RequestTrace trace = read_request_trace(in, "days.csv");
  const auto rate = hourly_rates(trace, 0.0);
  // Rates 10 (h + 1) an hour over a mean of 125: (h + 1) / 12.5. The last hour is covered up to its last
  // request (3,585 of its 3,600 s on the second day): 0.1 % high there.
  for (int h = 0; h < 23; ++h) CHECK(rate[h] == Approx((h + 1) / 12.5).epsilon(1e-3));
  CHECK(rate[23] == Approx(24 / 12.5).epsilon(3e-3));
  // On a clock from the trace's start, start_hour says where it begins: the same curve, turned.
  const auto turned = hourly_rates(trace, 6.0);
  CHECK(turned[6] == Approx(rate[0]).epsilon(1e-9));
  CHECK(turned[5] == Approx(rate[23]).epsilon(1e-9));
}

TEST_CASE("hourly_rates: a dated trace's hours are the day's (UTC)", "[jobs][serving]") {
  // From 2023-11-16 18:00 UTC to 18:00 the next day: a request at the start of each hour but 5 from 02:00
  // to 03:00 UTC. Its clock's hours hold, whatever start_hour says.
  std::ostringstream out;
  out << "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  for (int k = 0; k <= 24; ++k) {
    const int hour = (18 + k) % 24, day = 16 + (18 + k) / 24;
    for (int i = 0; i < (hour == 2 ? 5 : 1); ++i)
      out << fmt::format("2023-11-{} {:02}:{:02}:00.0000000,100,10\n", day, hour, i * 10);
  }
  std::istringstream in(out.str());
  const RequestTrace trace = read_request_trace(in, "azure.csv");
  REQUIRE(trace.dated);
  const auto rate = hourly_rates(trace, 9.0);
  // 29 requests over 24 h (the last, at 18:00, ends the span: hour 18 holds two over its one hour covered):
  // hour 2's rate is 5 an hour of a mean 29 / 24, hour 18's 2, the others' 1.
  CHECK(rate[2] == Approx(5.0 / (29.0 / 24.0)).epsilon(1e-12));
  CHECK(rate[18] == Approx(2.0 / (29.0 / 24.0)).epsilon(1e-12));
  CHECK(rate[7] == Approx(1.0 / (29.0 / 24.0)).epsilon(1e-12));
}

TEST_CASE("hourly_rates: the generator fed the measured curve follows it", "[jobs][serving]") {
  std::istringstream in(plain_days(2, [](int h) { return h < 12 ? 20 : 60; }));
  const RequestTrace trace = read_request_trace(in, "days.csv");
  RequestGeneratorConfig g;
  g.hourly = hourly_rates(trace, 0.0);
  g.mean_rate_per_s = 2.0, g.seed = 3;
  const auto requests = generate_requests(g, trace.requests);
  double morning = 0.0, evening = 0.0;
  for (const auto& r : requests) (r.arrival_s < 43200.0 ? morning : evening) += 1.0;
  // Three times the rate after noon: 43,200 and 129,600 expected (Poisson: within 5 standard deviations).
  CHECK(std::abs(morning - 43200.0) < 5.0 * std::sqrt(43200.0));
  CHECK(std::abs(evening - 129600.0) < 5.0 * std::sqrt(129600.0));
}

TEST_CASE("hourly_rates: a trace shorter than a day is refused", "[jobs][serving]") {
  std::istringstream in("time_s,input_tokens,output_tokens\n0,100,10\n3600,100,10\n");
  const RequestTrace trace = read_request_trace(in, "hour.csv");
  CHECK_THROWS_WITH(
      hourly_rates(trace, 0.0),
      "the trace covers 1 h from its first request to its last; a day's curve needs at least 24 h");
}

}  // namespace
}  // namespace fleetwatt::jobs
