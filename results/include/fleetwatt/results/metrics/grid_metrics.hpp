// What a grid planner takes away from a run: peak demand and its time, billing-window peaks (15 min, 1 h),
// load factor, energy per day, ramps, the load-duration curve and the demand in the system's peak hours.
// Pure functions of a facility power series (interval means, one interval length) and a wall clock, so a
// run computes them while it streams and `fleetwatt report` can compute the same from a result file.
//
// Definitions (docs/results.md, "Result file (HDF5)"):
//  - Windows are ALIGNED to the wall clock of [output] start, as tariffs bill demand: 15-min windows start at
//    :00, :15, :30, :45, 1-h windows on the hour, days at local midnight. A window's mean is the
//    overlap-weighted mean of the interval means it covers (exact when the interval divides the window). Only
//    complete windows (wholly inside [0, horizon)) count for peaks and ramps.
//  - Ramp over window W: the difference between the means of two consecutive complete windows (the later
//    minus the earlier); ramp up is the largest rise, ramp down the largest fall (a positive number), each
//    zero, with no time, when the power never moves that way: neither is ever negative.
//  - Resolution: a window shorter than the series' interval gets no peak and no ramps (NaN), as the
//    power-quality ramps do; its figures would be the interval's own.
//  - Load-duration curve: value k (k = 0..100) is the highest power P such that the facility draws at least
//    P (interval means) during at least k % of the horizon: value 0 is the peak interval mean, value 100 the
//    lowest. Each interval weighs its length (the last one ends at the horizon).
//  - Coincident peak: over the complete clock hours of the run whose hour of day (on the start's clock) is in
//    [grid] system_peak_hours, the highest and the mean of the facility's hourly mean power.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "fleetwatt/results/metrics/wall_clock.hpp"

namespace fleetwatt::results {

/// Peak and ramps over aligned windows of one width. All NaN (and no windows) when the width is below the
/// series' interval.
struct WindowStats {
  double width_s = 0;
  std::uint64_t windows = 0;  ///< complete windows seen
  double peak_W = std::numeric_limits<double>::quiet_NaN();
  double peak_time_s = std::numeric_limits<double>::quiet_NaN();  ///< start of the (first) peak window
  /// The largest rise, >= 0; NaN with fewer than two windows.
  double ramp_up_W = std::numeric_limits<double>::quiet_NaN();
  double ramp_up_time_s =
      std::numeric_limits<double>::quiet_NaN();  ///< start of the later window (NaN: none)
  /// The largest fall as a positive number, >= 0; NaN with fewer than two windows.
  double ramp_down_W = std::numeric_limits<double>::quiet_NaN();
  double ramp_down_time_s = std::numeric_limits<double>::quiet_NaN();  ///< as ramp_up_time_s
};

struct GridMetrics {
  double interval_s = 0;
  double horizon_s = 0;
  double energy_J = 0;  ///< the series' own energy: sum of interval mean x interval length
  double mean_W = 0;    ///< energy_J / horizon_s
  double peak_W = 0;    ///< highest interval mean
  double peak_time_s = std::numeric_limits<double>::quiet_NaN();  ///< start of its (first) interval
  double load_factor = std::numeric_limits<double>::quiet_NaN();  ///< mean_W / peak_W
  double energy_per_day_J = 0;                                    ///< energy_J / (horizon_s / 86400)
  WindowStats minute, quarter_hour, hour;                         ///< 1-min, 15-min and 1-h windows
  std::vector<double> day_start_s;      ///< each clock day the run touches: its start (clipped to 0)
  std::vector<double> day_energy_J;     ///< ... and the energy in it (first and last days may be partial)
  std::vector<double> load_duration_W;  ///< 101 values, 0 % .. 100 % of the time exceeded (empty: no series)
  std::vector<int> system_peak_hours;   ///< as given; empty: no coincident peak
  std::uint64_t coincident_hours = 0;   ///< complete clock hours in system_peak_hours
  double coincident_peak_max_W = std::numeric_limits<double>::quiet_NaN();
  double coincident_peak_time_s = std::numeric_limits<double>::quiet_NaN();  ///< start of that hour
  double coincident_peak_mean_W = std::numeric_limits<double>::quiet_NaN();
};

struct GridMetricsOptions {
  std::int64_t interval_ns = 1'000'000'000;  ///< the series' interval length
  WallClock clock;
  std::vector<int> system_peak_hours;  ///< hours of day 0-23 on the clock
};

/// The load-duration curve (101 values, see above) of interval means, each `interval_ns` long except the
/// last, which ends at `horizon_ns`. Sorts `power_W` (taken by value: the caller decides whether to copy).
[[nodiscard]] std::vector<double> load_duration_curve(std::vector<double> power_W, std::int64_t interval_ns,
                                                      std::int64_t horizon_ns);

/// Streams a series into the metrics: windowed peaks, ramps and daily energy need constant memory; the
/// load-duration curve keeps the interval means (8 bytes each: a year at 1 s is 252 MB), because its
/// percentiles are exact.
class GridMetricsBuilder {
 public:
  explicit GridMetricsBuilder(GridMetricsOptions options);
  ~GridMetricsBuilder();
  GridMetricsBuilder(GridMetricsBuilder&&) noexcept;
  GridMetricsBuilder& operator=(GridMetricsBuilder&&) noexcept;

  /// The interval mean over [start_ns, start_ns + interval); samples come in time order, one per interval.
  void add(std::int64_t start_ns, double power_W);
  /// The metrics of everything added, the last interval ending at `horizon_ns`.
  [[nodiscard]] GridMetrics finish(std::int64_t horizon_ns);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The metrics of a whole series: power_W[i] is the mean over [i x interval, (i + 1) x interval), the last
/// interval ending at `horizon_ns`.
[[nodiscard]] GridMetrics grid_metrics(std::span<const double> power_W, const GridMetricsOptions& options,
                                       std::int64_t horizon_ns);

}  // namespace fleetwatt::results
