// Exact resampling onto clock-aligned rows: means weighted by overlap, totals split by overlap, partial rows
// at the horizon and at a start off the row grid, and the interval syntax of `fleetwatt export --interval`.
#include <catch2/catch.hpp>
#include <vector>

#include "fleetwatt/results/metrics/resample.hpp"

using namespace fleetwatt::results;
using Catch::Detail::Approx;

namespace {
constexpr std::int64_t kS = 1'000'000'000;

/// Column 0: a mean (power), column 1: a per-interval total (carbon).
std::vector<ResampledRow> resample(const std::vector<double>& power, const std::vector<double>& total,
                                   std::int64_t interval_s, std::int64_t horizon_s, std::int64_t width_s,
                                   WallClock clock = {}) {
  std::vector<ResampledRow> rows;
  Resampler r(interval_s * kS, horizon_s * kS, width_s * kS, clock, {false, true},
              [&rows](const ResampledRow& row) { rows.push_back(row); });
  for (std::size_t i = 0; i < power.size(); ++i) r.add(std::vector<double>{power[i], total[i]});
  r.finish();
  return rows;
}
}  // namespace

TEST_CASE("rows a multiple of the stored interval: plain means and sums, the last row partial",
          "[results][resample]") {
  // 10 s intervals, horizon 95 s (the last interval is [90, 95)); 30 s rows: [0,30) [30,60) [60,90) [90,95).
  const std::vector<double> p{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, c{10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  const auto rows = resample(p, c, 10, 95, 30);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].values[0] == Approx(2.0).epsilon(1e-15));  // (1 + 2 + 3) / 3
  CHECK(rows[1].values[0] == Approx(5.0).epsilon(1e-15));
  CHECK(rows[2].values[0] == Approx(8.0).epsilon(1e-15));
  CHECK(rows[3].values[0] == Approx(10.0).epsilon(1e-15));   // the 5 s stub at 10 W
  CHECK(rows[0].values[1] == Approx(60.0).epsilon(1e-15));   // 10 + 20 + 30
  CHECK(rows[3].values[1] == Approx(100.0).epsilon(1e-15));  // the last interval's whole total
  CHECK(rows[3].start_ns == 90 * kS);
  CHECK(rows[3].length_ns == 5 * kS);
  CHECK(rows[0].length_ns == 30 * kS);
}

TEST_CASE("rows not a multiple of the stored interval split an interval by time", "[results][resample]") {
  // 10 s intervals of 4, 8, 12 W (carbon 1, 2, 3 kg) over 30 s; 25 s rows: [0, 25) takes 10 s of 4 W,
  // 10 s of 8 W and 5 s of 12 W: (40 + 80 + 60) / 25 = 7.2 W, carbon 1 + 2 + 0.5 x 3 = 4.5 kg; [25, 30) is
  // 12 W and 1.5 kg.
  const auto rows = resample({4, 8, 12}, {1, 2, 3}, 10, 30, 25);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].values[0] == Approx(7.2).epsilon(1e-15));
  CHECK(rows[0].values[1] == Approx(4.5).epsilon(1e-15));
  CHECK(rows[1].values[0] == Approx(12.0).epsilon(1e-15));
  CHECK(rows[1].values[1] == Approx(1.5).epsilon(1e-15));
  // Shorter rows than the stored interval repeat its mean and split its total.
  const auto fine = resample({4, 8, 12}, {1, 2, 3}, 10, 30, 5);
  REQUIRE(fine.size() == 6);
  CHECK(fine[3].values[0] == 8.0);
  CHECK(fine[3].values[1] == Approx(1.0).epsilon(1e-15));
}

TEST_CASE("rows are aligned to the clock of the start", "[results][resample]") {
  // Start at 00:07:30: 15-min rows begin at 00:15, so the first row is [0, 450 s) and the next [450, 1350).
  const std::vector<double> p(1800, 100.0), c(1800, 1.0);
  const auto rows = resample(p, c, 1, 1800, 900, WallClock{kDefaultStartUnixS + 450, 0});
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].start_ns == 0);
  CHECK(rows[0].length_ns == 450 * kS);
  CHECK(rows[1].start_ns == 450 * kS);
  CHECK(rows[1].values[1] == Approx(900.0).epsilon(1e-15));
  CHECK(rows[2].length_ns == 450 * kS);
}

TEST_CASE("export intervals: a number and a unit", "[results][resample]") {
  CHECK(parse_interval("1s") == 1 * kS);
  CHECK(parse_interval("15min") == 900 * kS);
  CHECK(parse_interval("1h") == 3600 * kS);
  CHECK(parse_interval("1d") == 86400 * kS);
  CHECK(parse_interval("500ms") == kS / 2);
  CHECK(parse_interval("0.1s") == kS / 10);
  CHECK(parse_interval(" 2 h ") == 7200 * kS);
  for (const char* bad : {"", "15", "15 minutes", "-1s", "0s", "1e3s", "h", "1.5.2s", "0.1ns"}) {
    INFO(bad);
    CHECK_FALSE(parse_interval(bad).has_value());
  }
}
