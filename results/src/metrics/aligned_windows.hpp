// Clock-aligned windows streamed one interval at a time: peaks and ramps between consecutive complete
// windows (docs/results.md, "Result file (HDF5)"). Shared by the grid metrics and the power-quality figures
// so both define a ramp the same way.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

#include "fleetwatt/results/metrics/grid_metrics.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"

namespace fleetwatt::results::detail {

constexpr std::int64_t kNsPerS = 1'000'000'000;

// 128-bit products of nanosecond counts (a year of ns x 100 percent overflows 64 bits after ~3 years).
__extension__ using Wide = __int128;

inline std::int64_t floor_mod(std::int64_t a, std::int64_t m) {
  const std::int64_t r = a % m;
  return r < 0 ? r + m : r;
}

/// Windows of `width_s` whole seconds whose edges are multiples of the width on the local clock. Window k
/// covers simulated [k x width - phase, (k + 1) x width - phase), phase = local start mod width.
class AlignedWindows {
 public:
  /// `on_window(k, start_ns, covered_ns, energy_W_ns)` for every window the series touches (partial ones
  /// too).
  using Callback = std::function<void(std::int64_t, std::int64_t, std::int64_t, double)>;

  AlignedWindows(std::int64_t width_s, const WallClock& clock, Callback on_window = {})
      : width_ns_(width_s * kNsPerS),
        phase_ns_(floor_mod(clock.local_start_s(), width_s) * kNsPerS),
        on_window_(std::move(on_window)) {
    stats_.width_s = static_cast<double>(width_s);
  }

  /// Power `power_W` over [t0, t1).
  void add(std::int64_t t0, std::int64_t t1, double power_W) {
    while (t0 < t1) {
      const std::int64_t k = (t0 + phase_ns_) / width_ns_;
      const std::int64_t end = std::min(t1, (k + 1) * width_ns_ - phase_ns_);
      if (k != current_) {
        close();
        current_ = k;
      }
      energy_ += power_W * static_cast<double>(end - t0);
      covered_ += end - t0;
      t0 = end;
    }
  }

  /// Closes the open window (at the end of the series).
  void close() {
    if (current_ >= 0) {
      const std::int64_t start = current_ * width_ns_ - phase_ns_;
      if (on_window_) on_window_(current_, std::max<std::int64_t>(0, start), covered_, energy_);
      if (covered_ == width_ns_) complete(current_, start, energy_ / static_cast<double>(width_ns_));
    }
    current_ = -1;
    energy_ = 0.0;
    covered_ = 0;
  }

  [[nodiscard]] const WindowStats& stats() const noexcept { return stats_; }
  /// The stats at the data's resolution: none (NaN, no windows) when a window is shorter than the series'
  /// `interval_ns`, which would see one sample's value in several windows, its peak and ramp the
  /// interval's own. The one statement of that rule, for the grid metrics and the power-quality ramps.
  [[nodiscard]] WindowStats resolved_stats(std::int64_t interval_ns) const {
    return interval_ns > width_ns_ ? WindowStats{stats_.width_s} : stats_;
  }

 private:
  void complete(std::int64_t k, std::int64_t start_ns, double mean_W) {
    const double start_s = static_cast<double>(start_ns) / 1e9;
    ++stats_.windows;
    if (stats_.windows == 1 || mean_W > stats_.peak_W) {
      stats_.peak_W = mean_W;
      stats_.peak_time_s = start_s;
    }
    // Ramps compare neighbours only: a gap (never, in one run's series) would not be a ramp. Up is the
    // largest rise and down the largest fall, each zero (with no time) when the power never moves that way.
    if (last_k_ == k - 1) {
      if (std::isnan(stats_.ramp_up_W)) stats_.ramp_up_W = stats_.ramp_down_W = 0.0;
      const double rise = mean_W - last_mean_;
      if (rise > stats_.ramp_up_W) {
        stats_.ramp_up_W = rise;
        stats_.ramp_up_time_s = start_s;
      }
      if (-rise > stats_.ramp_down_W) {
        stats_.ramp_down_W = -rise;
        stats_.ramp_down_time_s = start_s;
      }
    }
    last_k_ = k;
    last_mean_ = mean_W;
  }

  std::int64_t width_ns_, phase_ns_;
  Callback on_window_;
  WindowStats stats_;
  std::int64_t current_ = -1, covered_ = 0;
  double energy_ = 0.0;  // W x ns
  std::int64_t last_k_ = -2;
  double last_mean_ = 0.0;
};

}  // namespace fleetwatt::results::detail
