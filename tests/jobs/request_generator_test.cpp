// Generated request arrivals against closed forms: a Poisson count's mean and spread, the hourly curve's
// ratios, the gamma inter-arrivals' coefficient of variation 1 / sqrt(shape), the start hour, lengths drawn
// from the recorded requests, the seed, and the refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <stdexcept>

#include "fleetwatt/jobs/request_generator.hpp"

namespace fleetwatt::jobs {
namespace {

std::vector<Request> lengths() {
  std::vector<Request> v;
  for (std::uint32_t i = 1; i <= 5; ++i) {
    Request r;
    r.input_tokens = 100 * i, r.output_tokens = 10 * i, r.record = i + 1;
    v.push_back(r);
  }
  return v;
}

/// Mean and coefficient of variation of the gaps between arrivals.
std::pair<double, double> gap_stats(const std::vector<Request>& r) {
  double s = 0.0, s2 = 0.0;
  const double n = double(r.size() - 1);
  for (std::size_t i = 1; i < r.size(); ++i) {
    const double g = r[i].arrival_s - r[i - 1].arrival_s;
    s += g, s2 += g * g;
  }
  const double mean = s / n;
  return {mean, std::sqrt(s2 / n - mean * mean) / mean};
}

TEST_CASE("A flat Poisson day: the count within three standard deviations, gaps of mean 1 / rate and CV 1",
          "[jobs][requests]") {
  RequestGeneratorConfig c;
  c.mean_rate_per_s = 2.0, c.horizon_s = 10000.0, c.seed = 3;
  const auto r = generate_requests(c, lengths());
  // Poisson: mean 20,000, standard deviation sqrt(20,000) = 141.
  CHECK(std::abs(double(r.size()) - 20000.0) < 3 * 141.5);
  const auto [mean, cv] = gap_stats(r);
  CHECK(mean == Approx(0.5).epsilon(0.03));
  CHECK(cv == Approx(1.0).epsilon(0.03));
  bool sorted = true;
  for (std::size_t i = 1; i < r.size(); ++i) sorted = sorted && r[i].arrival_s >= r[i - 1].arrival_s;
  CHECK(sorted);
  CHECK(r.back().arrival_s < 10000.0);
  // Every request's lengths are one recorded request's pair.
  std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (const auto& q : r) pairs.insert({q.input_tokens, q.output_tokens});
  CHECK(pairs.size() == 5);
  for (const auto& [in, out] : pairs) CHECK(in == 10 * out);
}

TEST_CASE("Bursty arrivals: gamma gaps of shape k spread 1 / sqrt(k) around the same mean",
          "[jobs][requests]") {
  RequestGeneratorConfig c;
  c.mean_rate_per_s = 5.0, c.horizon_s = 20000.0, c.burstiness_shape = 0.25, c.seed = 9;
  const auto [mean, cv] = gap_stats(generate_requests(c, lengths()));
  CHECK(mean == Approx(0.2).epsilon(0.05));
  CHECK(cv == Approx(2.0).epsilon(0.05));
  c.burstiness_shape = 4.0;
  CHECK(gap_stats(generate_requests(c, lengths())).second == Approx(0.5).epsilon(0.05));
}

TEST_CASE("The hourly curve sets each hour's share of the day, from the start hour", "[jobs][requests]") {
  RequestGeneratorConfig c;
  c.mean_rate_per_s = 1.0, c.seed = 5;
  c.hourly.fill(1.0);
  c.hourly[12] = 3.0;  // noon at three times the rate of the other hours
  const auto r = generate_requests(c, lengths());
  // The day's mean rate is 1/s: 86,400 requests, noon's hour 3 / 26 of them (9,969), another 1 / 26 (3,323).
  std::array<double, 24> per_hour{};
  for (const auto& q : r) per_hour[static_cast<std::size_t>(q.arrival_s / 3600.0)] += 1.0;
  CHECK(per_hour[12] == Approx(86400.0 * 3 / 26).epsilon(0.04));
  CHECK(per_hour[3] == Approx(86400.0 / 26).epsilon(0.07));
  // Only hour 5 of the day: from 4:30, its arrivals fall between 1,800 and 5,400 s.
  c.hourly.fill(0.0);
  c.hourly[5] = 1.0;
  c.start_hour = 4.5;
  const auto five = generate_requests(c, lengths());
  REQUIRE(!five.empty());
  CHECK(five.front().arrival_s >= 1800.0);
  CHECK(five.back().arrival_s < 5400.0);
  // The mean rate over the day is 1/s, all of it in one hour: 86,400 in that hour.
  CHECK(double(five.size()) == Approx(86400.0).epsilon(0.02));
}

TEST_CASE("Generated requests repeat with the seed and refuse what cannot be", "[jobs][requests]") {
  RequestGeneratorConfig c;
  c.horizon_s = 100.0;
  const auto a = generate_requests(c, lengths()), b = generate_requests(c, lengths());
  REQUIRE(a.size() == b.size());
  bool same = true;
  for (std::size_t i = 0; i < a.size(); ++i) same = same && a[i].arrival_s == b[i].arrival_s;
  CHECK(same);
  c.seed = 2;
  CHECK(generate_requests(c, lengths()).front().arrival_s != a.front().arrival_s);
  CHECK_THROWS_AS(generate_requests(c, {}), std::invalid_argument);
  RequestGeneratorConfig bad = c;
  bad.mean_rate_per_s = 0.0;
  CHECK_THROWS_AS(generate_requests(bad, lengths()), std::invalid_argument);
  bad = c;
  bad.hourly.fill(0.0);
  CHECK_THROWS_AS(generate_requests(bad, lengths()), std::invalid_argument);
  bad = c;
  bad.start_hour = 24.0;
  CHECK_THROWS_AS(generate_requests(bad, lengths()), std::invalid_argument);
  bad = c;
  bad.mean_rate_per_s = 1e6, bad.horizon_s = 1e6;
  CHECK_THROWS_WITH(generate_requests(bad, lengths()), Catch::Contains("10^8"));
}

}  // namespace
}  // namespace fleetwatt::jobs
