// Finding a training run's epochs in its power log. An epoch ends with a change of regime the log shows (a
// validation pass, a checkpoint, a data-loader restart): a short bump or dip against the level of training,
// repeated once an epoch. A run may have stages of different epochs (Keras transfer learning trains the head
// with the backbone frozen, then fine-tunes it), with their own period and level.
//
// 1. The active span: samples above the level halfway between idle (the lowest) and the median; all of them
//    when those differ by less than a tenth of the median (no idle in the log).
// 2. Stage boundaries: gaps of at least two samples below that level (recompilation between stages), and
//    shifts of the running level (the median of the `level_window_s` before against the one after, by more
//    than `level_shift_sigma` times the noise) away from any gap. Boundaries that recur at their common
//    spacing (within `period_agreement`) are the epochs' own valleys, not stages.
// 3. Each piece's period: the autocorrelation of its residual (the samples less their running median, clipped
//    at `clip_sigma` times the noise so that edges and spikes do not dominate); the first peak at least half
//    the highest, refined at its highest multiple. A piece shorter than `min_periods` of its own periods
//    (or without a period) joins the next; neighbours whose periods agree within `period_agreement` join.
// 4. Each stage's epochs: dynamic programming over the residual's strength |r| / noise (beat tracking, Ellis
//    2007): the chain of events from the stage's start, each 0.5 to 1.5 periods after the last, that
//    maximises the strengths less `rigidity` x ln(interval / period)^2, ending within half a period of the
//    stage's end. Each event ends an epoch.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fleetwatt/models/fit/telemetry.hpp"

namespace fleetwatt::models::fit {

struct EpochOptions {
  double running_median_s = 61.0;  ///< window of the running level the residual is taken from
  std::size_t gap_samples = 2;     ///< a stage gap: at least this many samples below the active level
  double level_window_s = 30.0;
  double level_shift_sigma = 10.0;
  double clip_sigma = 10.0;
  double min_periods = 4.0;
  double period_agreement = 0.1;
  double rigidity = 100.0;
};

/// A stage: samples [first, end) of the series with one epoch period.
struct EpochStage {
  std::size_t first = 0, end = 0;
  double start_s = 0.0, end_s = 0.0;
  double period_s = 0.0;  ///< 0: no period found (counted as one epoch)
  std::size_t epochs = 0;
};

/// One epoch: from the end of the previous one (or its stage's start) to its closing event.
struct Epoch {
  double start_s = 0.0, end_s = 0.0;
  double energy_J = 0.0;  ///< trapezoidal integral of the samples over [start_s, end_s]
  [[nodiscard]] double duration_s() const noexcept { return end_s - start_s; }
  [[nodiscard]] double mean_W() const noexcept { return duration_s() > 0.0 ? energy_J / duration_s() : 0.0; }
};

struct EpochFinding {
  std::vector<EpochStage> stages;
  std::vector<Epoch> epochs;
};

/// The epochs of one GPU's series (see the file comment). A series of fewer than a dozen active samples
/// has no stage.
[[nodiscard]] EpochFinding find_epochs(const GpuPowerSeries& series, const EpochOptions& options = {});

}  // namespace fleetwatt::models::fit
