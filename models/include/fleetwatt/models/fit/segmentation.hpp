// Segmenting a power trace into the square wave the predictors speak: idle before and after the job, peak
// (compute) phases and valley (checkpoint, synchronisation, evaluation) phases between them. The trace is
// smoothed with a short moving average as in the SR paper (3-5 points), split into high and low by the
// threshold that best separates the two levels (Otsu), and each change point is then placed on the raw
// samples where the step is largest, so that a clean edge is located to the sample.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "fleetwatt/models/fit/telemetry.hpp"

namespace fleetwatt::models::fit {

enum class PhaseKind { idle, peak, valley };

[[nodiscard]] std::string_view to_string(PhaseKind k) noexcept;

struct SegmentOptions {
  int smoothing_window = 5;           ///< moving-average width in samples (odd, 1..9; the paper uses 3-5)
  std::size_t min_phase_samples = 3;  ///< shorter runs are noise and join their neighbours
  /// The high and low levels must differ by this fraction of the high level to count as two phases; a
  /// trace whose levels differ less is one phase.
  double min_level_contrast = 0.10;
};

/// One phase: samples [first, last] of the series.
struct Phase {
  PhaseKind kind = PhaseKind::peak;
  std::size_t first = 0;
  std::size_t last = 0;
  double start_s = 0.0;  ///< boundaries lie halfway between the neighbouring samples
  double end_s = 0.0;
  double level_W = 0.0;  ///< the square wave's level: mean of the phase's samples away from its edges

  [[nodiscard]] double duration_s() const noexcept { return end_s - start_s; }
  [[nodiscard]] double energy_J() const noexcept { return level_W * duration_s(); }
};

/// One peak phase and the valley that follows it (absent after the last peak).
struct Cycle {
  double peak_W = 0.0;
  double peak_s = 0.0;
  double valley_W = 0.0;
  double valley_s = 0.0;
};

/// The segmented trace of one GPU and its square-wave summary.
struct Segmentation {
  int gpu = 0;
  std::vector<Phase> phases;
  std::vector<Cycle> cycles;
  double threshold_W = 0.0;        ///< the high/low split used (0 when the trace is one phase)
  double measured_energy_J = 0.0;  ///< trapezoidal integral of the raw samples
  double phase_energy_J = 0.0;     ///< sum of level x duration over the phases
  double duration_s = 0.0;
  double peak_W = 0.0;  ///< duration-weighted mean level of the peak phases
  double peak_s = 0.0;  ///< mean duration of one peak phase
  double peak_total_s = 0.0;
  double valley_W = 0.0;  ///< duration-weighted mean level of the valleys (0 when none)
  double valley_s = 0.0;  ///< mean duration of one valley
  double valley_total_s = 0.0;
  double idle_W = 0.0;
  double idle_s = 0.0;
  std::size_t n_peaks = 0;
  std::size_t n_valleys = 0;
};

/// Centred moving average of `window` points (shrinking at the ends).
[[nodiscard]] std::vector<double> moving_average(const std::vector<double>& x, int window);

/// Segments one GPU's series; throws ConfigError for bad options and TraceFormatError (naming `source`)
/// when the series has fewer than two samples.
[[nodiscard]] Segmentation segment_series(const GpuPowerSeries& series, const SegmentOptions& options = {},
                                          std::string_view source = {});

}  // namespace fleetwatt::models::fit
