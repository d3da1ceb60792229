// Square-wave segmentation of a power series: smoothing, a two-level threshold, change points refined on
// the raw samples, short runs merged, runs labelled idle/peak/valley by position, levels from the interiors.
#include "fleetwatt/models/fit/segmentation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::models::fit {

using core::ConfigError;
using core::SourceLocation;
using core::TraceFormatError;

std::string_view to_string(PhaseKind k) noexcept {
  switch (k) {
    case PhaseKind::idle:
      return "idle";
    case PhaseKind::peak:
      return "peak";
    case PhaseKind::valley:
      return "valley";
  }
  return "?";
}

std::vector<double> moving_average(const std::vector<double>& x, int window) {
  const auto n = static_cast<std::ptrdiff_t>(x.size());
  const std::ptrdiff_t half = window / 2;
  std::vector<double> prefix(x.size() + 1, 0.0);
  for (std::size_t i = 0; i < x.size(); ++i) prefix[i + 1] = prefix[i] + x[i];
  std::vector<double> out(x.size());
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(0, i - half);
    const std::ptrdiff_t hi = std::min<std::ptrdiff_t>(n - 1, i + half);
    out[static_cast<std::size_t>(i)] =
        (prefix[static_cast<std::size_t>(hi + 1)] - prefix[static_cast<std::size_t>(lo)]) /
        double(hi - lo + 1);
  }
  return out;
}

namespace {

/// Otsu's threshold over the values: the split maximising the between-class variance, computed exactly on
/// the sorted values (no histogram binning). Returns the split value and the two class means.
struct TwoLevels {
  double threshold = 0.0;
  double low = 0.0;
  double high = 0.0;
};

TwoLevels otsu(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  std::vector<double> prefix(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + v[i];
  TwoLevels best{v.back(), v.front(), v.back()};
  double best_score = -1.0;
  for (std::size_t k = 1; k < n; ++k) {
    if (v[k] == v[k - 1]) continue;
    const double w0 = double(k), w1 = double(n - k);
    const double m0 = prefix[k] / w0, m1 = (prefix[n] - prefix[k]) / w1;
    const double score = w0 * w1 * (m1 - m0) * (m1 - m0);
    if (score > best_score) {
      best_score = score;
      best = {0.5 * (v[k - 1] + v[k]), m0, m1};
    }
  }
  return best;
}

/// Position in [lo, hi] (a boundary: first sample of the new run) of the single change point that best
/// explains the raw samples of the window [lo - w, hi + w] (clipped to [floor, ceil)): the split with the
/// largest between-segment sum of squares, as in binary segmentation.
std::size_t refine_edge(const std::vector<double>& p, std::size_t lo, std::size_t hi, std::size_t w,
                        std::size_t floor, std::size_t ceil) {
  const std::size_t a = std::max(floor, lo >= w ? lo - w : 0);
  const std::size_t b = std::min(ceil, hi + 1 + w);
  std::vector<double> prefix(b - a + 1, 0.0);
  for (std::size_t i = a; i < b; ++i) prefix[i - a + 1] = prefix[i - a] + p[i];
  std::size_t best = lo;
  double best_score = -1.0;
  for (std::size_t k = std::max(lo, a + 1); k <= hi && k < b; ++k) {
    const double nl = double(k - a), nr = double(b - k);
    const double ml = prefix[k - a] / nl, mr = (prefix[b - a] - prefix[k - a]) / nr;
    const double score = nl * nr / (nl + nr) * (ml - mr) * (ml - mr);
    if (score > best_score) {
      best_score = score;
      best = k;
    }
  }
  return best;
}

}  // namespace

Segmentation segment_series(const GpuPowerSeries& series, const SegmentOptions& options,
                            std::string_view source) {
  if (options.smoothing_window < 1 || options.smoothing_window > 9 || options.smoothing_window % 2 == 0)
    throw ConfigError(
        SourceLocation{std::string(source), 0, 0}, "smoothing_window",
        "must be an odd number of samples from 1 to 9, got " + std::to_string(options.smoothing_window));
  const auto& p = series.power_W;
  const auto& t = series.time_s;
  const std::size_t n = p.size();
  if (n < 2)
    throw TraceFormatError(SourceLocation{std::string(source), 0, 0}, "gpu " + std::to_string(series.index),
                           "needs at least two power samples to segment, has " + std::to_string(n));

  Segmentation seg;
  seg.gpu = series.index;
  seg.measured_energy_J = trapezoid_energy_J(series);
  seg.duration_s = t.back() - t.front();

  const auto smooth = moving_average(p, options.smoothing_window);
  const TwoLevels lv = otsu(smooth);
  const bool two_levels = lv.high > 0.0 && (lv.high - lv.low) >= options.min_level_contrast * lv.high;

  // Runs of high/low samples, as boundaries (index of each run's first sample).
  std::vector<std::size_t> starts{0};
  std::vector<bool> high{true};
  // Folds runs too short to be a phase into their neighbours (repeat until stable).
  auto merge_short_runs = [&] {
    bool changed = true;
    while (changed && starts.size() > 1) {
      changed = false;
      for (std::size_t r = 0; r < starts.size(); ++r) {
        const std::size_t end = r + 1 < starts.size() ? starts[r + 1] : n;
        if (end - starts[r] >= options.min_phase_samples) continue;
        // Dropping a run's boundaries folds it into its neighbours.
        if (r == 0) {
          starts.erase(starts.begin() + 1);
          high.erase(high.begin());
          starts[0] = 0;
        } else if (r + 1 == starts.size()) {
          starts.pop_back();
          high.pop_back();
        } else {
          starts.erase(starts.begin() + static_cast<std::ptrdiff_t>(r),
                       starts.begin() + static_cast<std::ptrdiff_t>(r + 2));
          high.erase(high.begin() + static_cast<std::ptrdiff_t>(r),
                     high.begin() + static_cast<std::ptrdiff_t>(r + 2));
        }
        changed = true;
        break;
      }
    }
  };
  if (two_levels) {
    seg.threshold_W = lv.threshold;
    std::vector<bool> label(n);
    for (std::size_t i = 0; i < n; ++i) label[i] = smooth[i] > lv.threshold;
    // A second split inside the active span separates valleys that sit well above idle (checkpoints that
    // keep the GPU busy) from the peaks; it is kept only when its two levels are clearly apart too.
    const auto first_on =
        static_cast<std::size_t>(std::find(label.begin(), label.end(), true) - label.begin());
    const auto last_on =
        n - 1 - static_cast<std::size_t>(std::find(label.rbegin(), label.rend(), true) - label.rbegin());
    if (last_on > first_on + 2) {
      const TwoLevels inner = otsu({smooth.begin() + static_cast<std::ptrdiff_t>(first_on),
                                    smooth.begin() + static_cast<std::ptrdiff_t>(last_on + 1)});
      if (inner.threshold > lv.threshold &&
          (inner.high - inner.low) >= options.min_level_contrast * inner.high) {
        seg.threshold_W = inner.threshold;
        for (std::size_t i = first_on; i <= last_on; ++i) label[i] = smooth[i] > inner.threshold;
      }
    }
    high[0] = label[0];
    for (std::size_t i = 1; i < n; ++i) {
      if (label[i] != high.back()) {
        starts.push_back(i);
        high.push_back(label[i]);
      }
    }
    merge_short_runs();
    // Each threshold crossing of the smoothed trace lies within half a window of the raw edge.
    const auto w = static_cast<std::size_t>(options.smoothing_window);
    for (std::size_t r = 1; r < starts.size(); ++r) {
      const std::size_t lo = std::max(starts[r - 1] + 1, starts[r] > w ? starts[r] - w : std::size_t{1});
      const std::size_t next = r + 1 < starts.size() ? starts[r + 1] : n;
      const std::size_t hi = std::min(next - 1, starts[r] + w);
      const std::size_t ceil = r + 2 < starts.size() ? starts[r + 2] : n;
      if (lo <= hi) starts[r] = refine_edge(p, lo, hi, std::max<std::size_t>(w, 2), starts[r - 1], ceil);
    }
    merge_short_runs();
  }

  // Phases: high runs are peaks; low runs are idle at either end and valleys in between.
  const std::size_t runs = starts.size();
  std::size_t first_high = runs, last_high = 0;
  for (std::size_t r = 0; r < runs; ++r)
    if (high[r]) {
      first_high = std::min(first_high, r);
      last_high = r;
    }
  for (std::size_t r = 0; r < runs; ++r) {
    Phase ph;
    ph.first = starts[r];
    ph.last = (r + 1 < runs ? starts[r + 1] : n) - 1;
    ph.kind = high[r]                                                  ? PhaseKind::peak
              : (first_high < runs && r > first_high && r < last_high) ? PhaseKind::valley
                                                                       : PhaseKind::idle;
    ph.start_s = r == 0 ? t.front() : 0.5 * (t[ph.first - 1] + t[ph.first]);
    ph.end_s = r + 1 == runs ? t.back() : 0.5 * (t[ph.last] + t[ph.last + 1]);
    // The level ignores the samples the edges may have smeared (the instrument's own averaging), keeping
    // at least one sample.
    const std::size_t len = ph.last - ph.first + 1;
    const std::size_t trim_each = len > 4 ? 1 : 0;
    double sum = 0.0;
    for (std::size_t i = ph.first + trim_each; i + trim_each <= ph.last; ++i) sum += p[i];
    ph.level_W = sum / double(len - 2 * trim_each);
    seg.phases.push_back(ph);
  }

  double peak_E = 0.0, valley_E = 0.0, idle_E = 0.0;
  for (std::size_t i = 0; i < seg.phases.size(); ++i) {
    const Phase& ph = seg.phases[i];
    seg.phase_energy_J += ph.energy_J();
    switch (ph.kind) {
      case PhaseKind::peak: {
        ++seg.n_peaks;
        seg.peak_total_s += ph.duration_s();
        peak_E += ph.energy_J();
        Cycle c{ph.level_W, ph.duration_s(), 0.0, 0.0};
        if (i + 1 < seg.phases.size() && seg.phases[i + 1].kind == PhaseKind::valley) {
          c.valley_W = seg.phases[i + 1].level_W;
          c.valley_s = seg.phases[i + 1].duration_s();
        }
        seg.cycles.push_back(c);
        break;
      }
      case PhaseKind::valley:
        ++seg.n_valleys;
        seg.valley_total_s += ph.duration_s();
        valley_E += ph.energy_J();
        break;
      case PhaseKind::idle:
        seg.idle_s += ph.duration_s();
        idle_E += ph.energy_J();
        break;
    }
  }
  if (seg.peak_total_s > 0) seg.peak_W = peak_E / seg.peak_total_s;
  if (seg.n_peaks > 0) seg.peak_s = seg.peak_total_s / double(seg.n_peaks);
  if (seg.valley_total_s > 0) seg.valley_W = valley_E / seg.valley_total_s;
  if (seg.n_valleys > 0) seg.valley_s = seg.valley_total_s / double(seg.n_valleys);
  if (seg.idle_s > 0) seg.idle_W = idle_E / seg.idle_s;
  return seg;
}

}  // namespace fleetwatt::models::fit
