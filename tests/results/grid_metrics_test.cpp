// Grid metrics on hand-made series whose answers are worked out by hand below: a square wave, a ramp, a step
// inside an interval, a short last interval, and a clock with an offset (aligned windows, hours of the day,
// the coincident peak), and an hourly and a 0.1-s series for the data's resolution.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "fleetwatt/results/metrics/grid_metrics.hpp"
#include "fleetwatt/results/metrics/power_quality.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"

using namespace fleetwatt::results;
using Catch::Detail::Approx;

namespace {
constexpr std::int64_t kS = 1'000'000'000;

GridMetricsOptions every_second(WallClock clock = {}, std::vector<int> hours = {}) {
  return {kS, clock, std::move(hours)};
}
}  // namespace

TEST_CASE("a square wave: peaks, load factor, ramps, load-duration curve, coincident peak",
          "[results][grid]") {
  // One day at 1 s: 2000 W in even hours (0, 2, ...), 1000 W in odd hours.
  std::vector<double> p(86400);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = (i / 3600) % 2 == 0 ? 2000.0 : 1000.0;
  const auto g = grid_metrics(p, every_second({}, {17, 18, 19}), 86400 * kS);
  CHECK(g.peak_W == 2000.0);
  CHECK(g.peak_time_s == 0.0);  // the first of the equal peaks
  CHECK(g.energy_J == Approx(1500.0 * 86400).epsilon(1e-12));
  CHECK(g.mean_W == Approx(1500.0).epsilon(1e-12));
  CHECK(g.load_factor == Approx(0.75).epsilon(1e-12));  // 1500 / 2000
  CHECK(g.energy_per_day_J == Approx(1500.0 * 86400).epsilon(1e-12));
  for (const WindowStats* w : {&g.minute, &g.quarter_hour, &g.hour}) {
    INFO(w->width_s);
    CHECK(w->windows == static_cast<std::uint64_t>(86400 / w->width_s));
    CHECK(w->peak_W == Approx(2000.0).epsilon(1e-12));
    CHECK(w->peak_time_s == 0.0);
    // Windows never straddle a level change (every width divides an hour): a rise of 1000 W first at 2 h
    // (odd hour 1 -> even hour 2), a fall of 1000 W first at 1 h.
    CHECK(w->ramp_up_W == Approx(1000.0).epsilon(1e-12));
    CHECK(w->ramp_up_time_s == 7200.0);
    CHECK(w->ramp_down_W == Approx(1000.0).epsilon(1e-12));
    CHECK(w->ramp_down_time_s == 3600.0);
  }
  // Half the time at 2000 W: at least 2000 W during k % of the day for k <= 50, 1000 W beyond.
  REQUIRE(g.load_duration_W.size() == 101);
  for (int k = 0; k <= 100; ++k)
    CHECK(g.load_duration_W[static_cast<std::size_t>(k)] == (k <= 50 ? 2000.0 : 1000.0));
  REQUIRE(g.day_energy_J.size() == 1);
  CHECK(g.day_start_s[0] == 0.0);
  CHECK(g.day_energy_J[0] == Approx(1500.0 * 86400).epsilon(1e-12));
  // Hours 17 and 19 are odd (1000 W), 18 even (2000 W): max 2000 W at 18:00, mean 4000 / 3.
  CHECK(g.coincident_hours == 3);
  CHECK(g.coincident_peak_max_W == Approx(2000.0).epsilon(1e-12));
  CHECK(g.coincident_peak_time_s == 18 * 3600.0);
  CHECK(g.coincident_peak_mean_W == Approx(4000.0 / 3).epsilon(1e-12));
}

TEST_CASE("a ramp: window means, ramps and load-duration percentiles", "[results][grid]") {
  // P_i = i W over 2 h at 1 s (i = 0 .. 7199).
  std::vector<double> p(7200);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<double>(i);
  const auto g = grid_metrics(p, every_second(), 7200 * kS);
  CHECK(g.peak_W == 7199.0);
  CHECK(g.peak_time_s == 7199.0);
  CHECK(g.mean_W == Approx(3599.5).epsilon(1e-12));
  CHECK(g.load_factor == Approx(3599.5 / 7199).epsilon(1e-12));
  // A window of w seconds from s has mean s + (w - 1) / 2; neighbours differ by w watts, always upwards, so
  // the load never falls: a ramp down of 0, with no time.
  CHECK(g.quarter_hour.peak_W == Approx(6300 + 449.5).epsilon(1e-12));
  CHECK(g.quarter_hour.peak_time_s == 6300.0);
  CHECK(g.hour.peak_W == Approx(3600 + 1799.5).epsilon(1e-12));
  CHECK(g.hour.peak_time_s == 3600.0);
  CHECK(g.minute.ramp_up_W == Approx(60.0).epsilon(1e-12));
  CHECK(g.minute.ramp_up_time_s == 60.0);
  CHECK(g.quarter_hour.ramp_up_W == Approx(900.0).epsilon(1e-12));
  CHECK(g.hour.ramp_up_W == Approx(3600.0).epsilon(1e-12));
  CHECK(g.hour.ramp_down_W == 0.0);
  CHECK(std::isnan(g.hour.ramp_down_time_s));
  CHECK(g.minute.ramp_down_W == 0.0);
  // Sorted from the top, the j-th value is 7199 - j; value k is the first j whose (j + 1) s reach k % of
  // 7200 s: j = 72 k - 1, so 7200 - 72 k (k >= 1), and the peak 7199 for k = 0.
  REQUIRE(g.load_duration_W.size() == 101);
  CHECK(g.load_duration_W[0] == 7199.0);
  for (int k = 1; k <= 100; ++k) CHECK(g.load_duration_W[static_cast<std::size_t>(k)] == 7200.0 - 72.0 * k);
}

TEST_CASE("a step inside an interval: window means weigh the intervals they cover", "[results][grid]") {
  // 10 s intervals over 3 h; the power steps from 1000 W to 3000 W at 3725 s, inside interval 372
  // [3720, 3730), whose mean is (5 x 1000 + 5 x 3000) / 10 = 2000 W.
  std::vector<double> p(1080);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = i < 372 ? 1000.0 : i == 372 ? 2000.0 : 3000.0;
  const auto g = grid_metrics(p, {10 * kS, {}, {}}, 10800 * kS);
  CHECK(g.peak_W == 3000.0);
  CHECK(g.peak_time_s == 3730.0);
  // 15-min window [3600, 4500): 12 x 1000 + 2000 + 77 x 3000 over 90 intervals = 245000 / 90.
  CHECK(g.quarter_hour.ramp_up_W == Approx(245000.0 / 90 - 1000).epsilon(1e-12));
  CHECK(g.quarter_hour.ramp_up_time_s == 3600.0);
  CHECK(g.quarter_hour.peak_W == Approx(3000.0).epsilon(1e-12));
  CHECK(g.quarter_hour.peak_time_s == 4500.0);
  // Hour [3600, 7200): 12 x 1000 + 2000 + 347 x 3000 over 360 = 1055000 / 360; the next hour is 3000 W.
  CHECK(g.hour.ramp_up_W == Approx(1055000.0 / 360 - 1000).epsilon(1e-12));
  CHECK(g.hour.ramp_down_W == 0.0);  // it only rises
  // Minute [3720, 3780): 2000 + 5 x 3000 over 6 intervals; the minute before is 1000 W.
  CHECK(g.minute.ramp_up_W == Approx(17000.0 / 6 - 1000).epsilon(1e-12));
  CHECK(g.minute.ramp_up_time_s == 3720.0);
  // Energy: 372 x 10 s x 1000 + 10 s x 2000 + 707 x 10 s x 3000.
  CHECK(g.energy_J == Approx(3720000.0 + 20000 + 21210000).epsilon(1e-12));
}

TEST_CASE("the load-duration curve weighs a short last interval by its length", "[results][grid]") {
  // 10 s intervals, horizon 25 s: 5 W for 10 s, 1 W for 10 s, 3 W for the last 5 s. At or above 5 W: 10 s
  // (40 % of 25 s); at or above 3 W: 15 s (60 %); 1 W beyond.
  const auto curve = load_duration_curve({5.0, 1.0, 3.0}, 10 * kS, 25 * kS);
  REQUIRE(curve.size() == 101);
  for (int k = 0; k <= 100; ++k)
    CHECK(curve[static_cast<std::size_t>(k)] == (k <= 40 ? 5.0 : k <= 60 ? 3.0 : 1.0));
  const auto g = grid_metrics(std::vector<double>{5.0, 1.0, 3.0}, {10 * kS, {}, {}}, 25 * kS);
  CHECK(g.energy_J == Approx(75.0).epsilon(1e-12));  // 50 + 10 + 15
  CHECK(g.mean_W == Approx(3.0).epsilon(1e-12));
  CHECK(g.load_factor == Approx(0.6).epsilon(1e-12));
  CHECK(std::isnan(g.minute.peak_W));  // no complete minute in 25 s
  CHECK(g.minute.windows == 0);
}

TEST_CASE("windows and hours follow the clock of the start, offset included", "[results][grid]") {
  // Start 2026-01-01T16:30:00+02:00; 1 s series over 4 h, 1000 W + 100 W for every half hour elapsed.
  WallClock clock{kDefaultStartUnixS + 14 * 3600 + 1800, 7200};
  CHECK(clock.iso8601(0) == "2026-01-01T16:30:00+02:00");
  CHECK(clock.iso8601(9000 * kS) == "2026-01-01T19:00:00+02:00");
  CHECK(clock.iso8601(kS / 2) == "2026-01-01T16:30:00.5+02:00");
  CHECK(WallClock{}.iso8601(86400 * kS) == "2026-01-02T00:00:00Z");
  std::vector<double> p(14400);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = 1000.0 + 100.0 * static_cast<double>(i / 1800);
  const auto g = grid_metrics(p, every_second(clock, {17, 19}), 14400 * kS);
  // Local clock hours: 17:00-18:00 is [1800, 5400) s: 1100 W then 1200 W, mean 1150; 19:00-20:00 is
  // [9000, 12600): 1500 and 1600, mean 1550. 16:30-17:00 and 20:00-20:30 are partial hours.
  CHECK(g.hour.windows == 3);  // 17, 18 and 19 h
  CHECK(g.hour.peak_time_s == 9000.0);
  CHECK(g.coincident_hours == 2);
  CHECK(g.coincident_peak_max_W == Approx(1550.0).epsilon(1e-12));
  CHECK(g.coincident_peak_time_s == 9000.0);
  CHECK(g.coincident_peak_mean_W == Approx(1350.0).epsilon(1e-12));
  // Days at local midnight: the run (16:30 to 20:30) lies in one.
  REQUIRE(g.day_energy_J.size() == 1);
  CHECK(g.day_energy_J[0] == Approx(g.energy_J).epsilon(1e-12));
}

TEST_CASE("15-min windows start on the quarter hour: a partial first window does not count",
          "[results][grid]") {
  // Start 00:07:30Z, horizon 1 h: 1000 W until 00:15:00 (450 s), 2000 W after. Complete windows start at
  // 450, 1350 and 2250 s (00:15, 00:30, 00:45); [0, 450) and [3150, 3600) are partial.
  WallClock clock{kDefaultStartUnixS + 450, 0};
  std::vector<double> p(3600);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = i < 450 ? 1000.0 : 2000.0;
  const auto g = grid_metrics(p, every_second(clock), 3600 * kS);
  CHECK(g.quarter_hour.windows == 3);
  CHECK(g.quarter_hour.peak_W == Approx(2000.0).epsilon(1e-12));
  CHECK(g.quarter_hour.peak_time_s == 450.0);
  CHECK(g.quarter_hour.ramp_up_W == 0.0);  // flat between complete windows: no rise, so no time
  CHECK(std::isnan(g.quarter_hour.ramp_up_time_s));
  CHECK(g.hour.windows == 0);  // 00:07:30 to 01:07:30 holds no whole clock hour
}

TEST_CASE("an hourly series: windows under an hour have no peak and no ramp", "[results][grid][resolution]") {
  // Hourly means 1000, 3000, 2000, 2000, 500, 4000 W. Hour to hour: +2000 (at 1 h), 0, 0, -1500 (at 4 h),
  // +3500 (at 5 h): up 3500 W at 5 h, down 1500 W at 4 h, peak 4000 W at 5 h. A 1-min or 15-min window
  // would only see one hour's value in several windows: NaN, no windows counted.
  const std::vector<double> p{1000, 3000, 2000, 2000, 500, 4000};
  const auto g = grid_metrics(p, {3600 * kS, {}, {}}, 6 * 3600 * kS);
  CHECK(g.hour.windows == 6);
  CHECK(g.hour.peak_W == 4000.0);
  CHECK(g.hour.peak_time_s == 5 * 3600.0);
  CHECK(g.hour.ramp_up_W == 3500.0);
  CHECK(g.hour.ramp_up_time_s == 5 * 3600.0);
  CHECK(g.hour.ramp_down_W == 1500.0);
  CHECK(g.hour.ramp_down_time_s == 4 * 3600.0);
  for (const WindowStats* w : {&g.minute, &g.quarter_hour}) {
    INFO(w->width_s);
    CHECK(w->windows == 0);
    CHECK(std::isnan(w->peak_W));
    CHECK(std::isnan(w->peak_time_s));
    CHECK(std::isnan(w->ramp_up_W));
    CHECK(std::isnan(w->ramp_down_W));
  }
  CHECK(g.peak_W == 4000.0);  // the interval's own peak stays: it is at the data's resolution
}

TEST_CASE("a 0.1-s series resolves every window and a falling load has an up ramp of 0, never below",
          "[results][grid][resolution]") {
  // 0.1-s means P_i = 5000 - i W over 2 min (i = 0 .. 1199). Minute 0 holds i = 0 .. 599, mean 4700.5 W;
  // minute 1 i = 600 .. 1199, mean 4100.5 W: a fall of 600 W at 60 s and no rise. The 15-min and 1-h
  // windows are resolved but the run holds none of them whole.
  std::vector<double> p(1200);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = 5000.0 - static_cast<double>(i);
  const std::int64_t tenth = kS / 10;
  const auto g = grid_metrics(p, {tenth, {}, {}}, 1200 * tenth);
  CHECK(g.minute.windows == 2);
  CHECK(g.minute.peak_W == Approx(4700.5).epsilon(1e-12));
  CHECK(g.minute.ramp_down_W == Approx(600.0).epsilon(1e-12));
  CHECK(g.minute.ramp_down_time_s == 60.0);
  CHECK(g.minute.ramp_up_W == 0.0);
  CHECK(std::isnan(g.minute.ramp_up_time_s));
  CHECK(g.quarter_hour.windows == 0);
  CHECK(std::isnan(g.quarter_hour.ramp_up_W));
  // The power-quality ramps are the same windows: 1-s means fall by 10 W a second, never rise.
  const auto q = power_quality(p, tenth, {}, 1200 * tenth);
  CHECK(q.ramp_down_W[0] == Approx(10.0).epsilon(1e-9));
  CHECK(q.ramp_up_W[0] == 0.0);
  CHECK(q.ramp_down_W[1] == Approx(600.0).epsilon(1e-12));
  CHECK(q.ramp_up_W[1] == 0.0);
}
