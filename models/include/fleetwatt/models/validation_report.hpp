// Predicted vs measured: a predictor's errors over a MeasurementSet, per GPU and overall. The predictor is
// any function from a measured row to a prediction, so the same report serves the registry's predictors, a
// leave-one-GPU-out fit or a calibrated band. `fleetwatt validate` prints it.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fleetwatt/models/fit/measurements.hpp"
#include "fleetwatt/models/hardware/time_split.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"

namespace fleetwatt::models {

class SiteCorrection;

/// What a predictor says about one measured row. The report compares the time of the kind the row measured:
/// epoch_s for rows with a measured epoch time, step_s for per-step rows (Measurement::step_s).
struct Prediction {
  double epoch_s = 0.0;      ///< predicted seconds per epoch
  double step_s = 0.0;       ///< predicted seconds per step (per-step rows)
  double avg_power_W = 0.0;  ///< predicted average GPU power
  PredictionBand band;       ///< level 0: no band (the in-band shares are then not counted)
  TimeSplit split;           ///< what sets epoch_s (unknown: a predictor that does not split its time)
};

/// One compared row.
struct RowComparison {
  std::size_t row = 0;  ///< index into MeasurementSet::rows
  double measured_s = 0.0, predicted_s = 0.0;
  double measured_W = 0.0, predicted_W = 0.0;  ///< 0 measured: power not measured
  double time_error = 0.0;                     ///< |predicted - measured| / measured
  double power_error = 0.0;                    ///< same for power (0 when not measured)
  bool banded = false;                         ///< the prediction carried a band (level > 0)
  bool time_in_band = false, power_in_band = false;
  TimeSplit split;  ///< what sets predicted_s (a step's for per-step rows)
  /// The share of the run's time the GPU runs kernels, as its source measured it and as the split says
  /// (TimeSplit::busy_share); both 0 where the source did not measure it or the prediction has no split.
  double measured_busy = 0.0, predicted_busy = 0.0;
};

/// Errors over a group of rows.
struct ErrorSummary {
  std::size_t rows = 0;         ///< rows compared
  double time_mre = 0.0;        ///< mean relative error of time (epoch or step, as measured)
  std::size_t power_rows = 0;   ///< rows with a measured power
  double power_mre = 0.0;       ///< mean relative error of average power over power_rows
  std::size_t banded_rows = 0;  ///< rows whose prediction carried a band
  double time_in_band = 0.0;    ///< share of banded rows whose measured time lies in the band
  double power_in_band = 0.0;   ///< share of banded rows with power whose measured power lies in the band
  double band_level = 0.0;      ///< mean band level of the banded rows (0: none)
};

struct ValidationReport {
  std::map<std::string, ErrorSummary> gpus;  ///< by preset id
  ErrorSummary all;
  std::vector<RowComparison> compared;
  /// The set's skipped rows, plus rows the predictor could not predict (why: its error message).
  std::vector<SkippedMeasurement> skipped;
};

/// Compares every row of `set` with `predict`'s prediction. A row whose prediction throws
/// std::exception (an unknown model, missing metadata) is added to `skipped` with the message; rows with
/// neither a measured time nor power are skipped too.
[[nodiscard]] ValidationReport validate_measurements(
    const MeasurementSet& set, const std::function<Prediction(const Measurement&)>& predict);

/// The row's run as a job the predictors take: where the source ran a model in another shape than the zoo's
/// (Measurement::shape), the job carries that shape's parameters and FLOPs; where it quotes FLOPs at an
/// unstated input size, the built-in fit's estimate of the work (PredictorFit::workload_work) applies.
[[nodiscard]] jobs::JobSpec as_predicted(const Measurement& m);

/// The GPU's busy share of a (GPU, workload)'s compared rows that measured it: means over those rows of
/// what the source measured and what the predictions' splits say (RowComparison::measured_busy). The power
/// model turns that share into watts, so this checks its input against a measurement of its own.
struct BusyShare {
  std::string gpu, workload;
  std::size_t rows = 0;
  double measured = 0.0, predicted = 0.0;
};
/// One per (GPU, workload) with rows that measured it, in that order; none where no row did.
[[nodiscard]] std::vector<BusyShare> busy_shares(const MeasurementSet& set, const ValidationReport& report);

/// A predictor function for validate_measurements from a registry predictor: `kind` built once per
/// distinct power limit (power_limit_w set where the predictor declares it), the row's GPU preset (from
/// `extra` first) with tdp_W overridden where the row states it. Per-step rows get the step time of the
/// datasheet breakdown (the epoch's compute part for other predictors).
/// With `site`: each prediction corrected to that site (models/site_predictor.hpp), a per-step row's step
/// time by the site's time factor.
[[nodiscard]] std::function<Prediction(const Measurement&)> registry_predictor(
    const std::string& kind = "datasheet", const std::vector<GpuHardware>& extra = {},
    std::shared_ptr<const SiteCorrection> site = nullptr);

}  // namespace fleetwatt::models
