// Grid metrics from a facility power series: clock-aligned windows streamed one interval at a time, and the
// load-duration curve from the kept interval means. Times are integer nanoseconds (as the engine's), so
// window edges and the curve's percentile thresholds are exact comparisons, never float ones.
#include "fleetwatt/results/metrics/grid_metrics.hpp"

#include "aligned_windows.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <stdexcept>

namespace fleetwatt::results {

using detail::AlignedWindows;
using detail::floor_mod;
using detail::kNsPerS;
using detail::Wide;

std::vector<double> load_duration_curve(std::vector<double> power_W, std::int64_t interval_ns,
                                        std::int64_t horizon_ns) {
  if (power_W.empty()) return {};
  const auto n = static_cast<std::int64_t>(power_W.size());
  const double last_value = power_W.back();
  // Every interval lasts interval_ns but the last, which ends at the horizon.
  const std::int64_t last_ns = std::max<std::int64_t>(0, horizon_ns - (n - 1) * interval_ns);
  const Wide total = static_cast<Wide>(n - 1) * interval_ns + last_ns;
  std::sort(power_W.begin(), power_W.end(), std::greater<>());
  // Equal values may be ordered any way without changing the answer: put the short last interval first among
  // its equals. The time at or above sorted[j] is then (j + 1) x interval, less the shortfall from j = p on.
  const auto p =
      std::lower_bound(power_W.begin(), power_W.end(), last_value, std::greater<>()) - power_W.begin();
  auto time_through = [&](std::int64_t j) {
    Wide t = static_cast<Wide>(j + 1) * interval_ns;
    if (j >= p) t -= interval_ns - last_ns;
    return t;
  };
  std::vector<double> curve(101);
  std::int64_t j = 0;
  for (int k = 0; k <= 100; ++k) {
    // The first j whose time at or above it reaches k % of the horizon (integers: no rounding at the edges).
    while (j < n - 1 && time_through(j) * 100 < total * k) ++j;
    curve[static_cast<std::size_t>(k)] = power_W[static_cast<std::size_t>(j)];
  }
  return curve;
}

struct GridMetricsBuilder::Impl {
  explicit Impl(GridMetricsOptions o)
      : options(std::move(o)),
        minute(60, options.clock),
        quarter(900, options.clock),
        hour(3600, options.clock,
             [this](std::int64_t k, std::int64_t start, std::int64_t covered, double energy) {
               on_hour(k, start, covered, energy);
             }),
        day(86400, options.clock, [this](std::int64_t, std::int64_t start, std::int64_t, double energy) {
          metrics.day_start_s.push_back(static_cast<double>(start) / 1e9);
          metrics.day_energy_J.push_back(energy / 1e9);
        }) {
    if (options.interval_ns <= 0) throw std::invalid_argument("grid metrics: the interval must be positive");
    for (int h : options.system_peak_hours)
      if (h >= 0 && h < 24) peak_hour[static_cast<std::size_t>(h)] = true;
    // Hour k of the 1-h windows starts at local clock (local start - phase) + k h: its hour of day follows.
    first_hour_of_day = floor_mod(
        (options.clock.local_start_s() - floor_mod(options.clock.local_start_s(), 3600)) / 3600, 24);
  }

  void on_hour(std::int64_t k, std::int64_t start_ns, std::int64_t covered_ns, double energy_W_ns) {
    if (covered_ns != 3600 * kNsPerS) return;
    if (!peak_hour[static_cast<std::size_t>(floor_mod(first_hour_of_day + k, 24))]) return;
    const double mean = energy_W_ns / static_cast<double>(covered_ns);
    ++metrics.coincident_hours;
    coincident_sum += mean;
    if (metrics.coincident_hours == 1 || mean > metrics.coincident_peak_max_W) {
      metrics.coincident_peak_max_W = mean;
      metrics.coincident_peak_time_s = static_cast<double>(start_ns) / 1e9;
    }
  }

  /// The interval [start, end) at `power_W`, into every window and the totals.
  void commit(std::int64_t start_ns, std::int64_t end_ns, double power_W) {
    if (end_ns <= start_ns) return;
    minute.add(start_ns, end_ns, power_W);
    quarter.add(start_ns, end_ns, power_W);
    hour.add(start_ns, end_ns, power_W);
    day.add(start_ns, end_ns, power_W);
    energy_W_ns += power_W * static_cast<double>(end_ns - start_ns);
  }

  GridMetricsOptions options;
  GridMetrics metrics;
  AlignedWindows minute, quarter, hour, day;
  std::array<bool, 24> peak_hour{};
  std::int64_t first_hour_of_day = 0;
  double coincident_sum = 0.0;
  double energy_W_ns = 0.0;
  std::vector<double> values;  // every interval mean, for the load-duration curve
  bool pending = false;        // the latest sample waits: only the next one (or the horizon) ends it
  std::int64_t pending_start = 0;
  double pending_W = 0.0;
  double peak_W = 0.0;
  std::int64_t peak_start = 0;
};

GridMetricsBuilder::GridMetricsBuilder(GridMetricsOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
GridMetricsBuilder::~GridMetricsBuilder() = default;
GridMetricsBuilder::GridMetricsBuilder(GridMetricsBuilder&&) noexcept = default;
GridMetricsBuilder& GridMetricsBuilder::operator=(GridMetricsBuilder&&) noexcept = default;

void GridMetricsBuilder::add(std::int64_t start_ns, double power_W) {
  auto& m = *impl_;
  if (m.pending)
    m.commit(m.pending_start, std::min(start_ns, m.pending_start + m.options.interval_ns), m.pending_W);
  if (m.values.empty() || power_W > m.peak_W) {
    m.peak_W = power_W;
    m.peak_start = start_ns;
  }
  m.values.push_back(power_W);
  m.pending = true;
  m.pending_start = start_ns;
  m.pending_W = power_W;
}

GridMetrics GridMetricsBuilder::finish(std::int64_t horizon_ns) {
  auto& m = *impl_;
  if (m.pending)
    m.commit(m.pending_start, std::min(horizon_ns, m.pending_start + m.options.interval_ns), m.pending_W);
  m.pending = false;
  m.minute.close();
  m.quarter.close();
  m.hour.close();
  m.day.close();
  GridMetrics g = std::move(m.metrics);
  m.metrics = {};
  g.interval_s = static_cast<double>(m.options.interval_ns) / 1e9;
  g.horizon_s = static_cast<double>(horizon_ns) / 1e9;
  g.energy_J = m.energy_W_ns / 1e9;
  g.mean_W = horizon_ns > 0 ? g.energy_J / g.horizon_s : 0.0;
  if (!m.values.empty()) {
    g.peak_W = m.peak_W;
    g.peak_time_s = static_cast<double>(m.peak_start) / 1e9;
    if (g.peak_W > 0) g.load_factor = g.mean_W / g.peak_W;
  }
  g.energy_per_day_J = horizon_ns > 0 ? g.energy_J / (g.horizon_s / 86400.0) : 0.0;
  g.minute = m.minute.resolved_stats(m.options.interval_ns);
  g.quarter_hour = m.quarter.resolved_stats(m.options.interval_ns);
  g.hour = m.hour.resolved_stats(m.options.interval_ns);
  g.system_peak_hours = m.options.system_peak_hours;
  if (g.coincident_hours > 0)
    g.coincident_peak_mean_W = m.coincident_sum / static_cast<double>(g.coincident_hours);
  g.load_duration_W = load_duration_curve(std::move(m.values), m.options.interval_ns, horizon_ns);
  m.values = {};
  return g;
}

GridMetrics grid_metrics(std::span<const double> power_W, const GridMetricsOptions& options,
                         std::int64_t horizon_ns) {
  GridMetricsBuilder b(options);
  for (std::size_t i = 0; i < power_W.size(); ++i)
    b.add(static_cast<std::int64_t>(i) * options.interval_ns, power_W[i]);
  return b.finish(horizon_ns);
}

}  // namespace fleetwatt::results
