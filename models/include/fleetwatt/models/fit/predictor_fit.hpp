// How the default predictor's constants (models/predictors/predictor_constants.hpp) are fitted: one joint
// Levenberg-Marquardt fit of the roofline's efficiencies, launch overhead, loading and epoch costs and of the
// power model's floors and saturations on every measurement in ../shared/data (models/fit/measurements.hpp),
// on log residuals, each GPU weighted equally, with ridge penalties holding per-family and per-GPU factors
// near the pooled values. Validation leaves one GPU out (fit on the others, predict it); the prediction band
// is split-conformal on those left-out residuals. The built-in constants (models/data/predictor_fit.toml,
// compiled in) are what `fleetwatt validate ../shared/data --fit -o models/data/predictor_fit.toml` writes; a
// test refits them.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleetwatt/models/fit/gemm_efficiency.hpp"
#include "fleetwatt/models/fit/measurements.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/hardware/time_split.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/models/predictors/predictor_constants.hpp"

namespace fleetwatt::models {

/// What the predictor says of one measured configuration.
struct RowPrediction {
  double step_s = 0.0;   ///< one step (work and loading stall)
  double epoch_s = 0.0;  ///< one epoch (steps and the epoch's end)
  double avg_power_W = 0.0;
  PredictionBand band;  ///< set by fit_and_validate for left-out rows (level 0 otherwise)
  PowerClass band_class = PowerClass::other;  ///< the class whose band it takes (band_class)
  TimeSplit split;                            ///< what sets epoch_s

  /// The predicted time of the kind `m` measured (a step or an epoch).
  [[nodiscard]] double time_s(const Measurement& m) const noexcept { return m.per_step() ? step_s : epoch_s; }
};

/// A measurement resolved once (model counts, GPU, step inputs), so fitting evaluates it cheaply.
struct PreparedRow {
  const Measurement* row = nullptr;
  ModelCount model;
  GpuHardware gpu;
  StepInputs inputs;
  double steps_per_epoch = 1.0;
  double checkpoint_s = 0.0;
  bool in_fitted_domain = true;
  std::string work_key;  ///< the workload, for a model known only by its FLOPs (see workload_work)
};

/// Resolves every usable row (rows whose model or GPU fleetwatt cannot resolve are skipped with a reason).
[[nodiscard]] std::vector<PreparedRow> prepare_rows(const MeasurementSet& set,
                                                    std::vector<SkippedMeasurement>* skipped = nullptr);
/// The prediction of one prepared row under `fit`, through the same arithmetic as the datasheet predictor
/// (no band: the fit's inner loop calls this for every row at every step).
[[nodiscard]] RowPrediction predict_row(const PreparedRow& row, const PredictorFit& fit);

struct FitOptions {
  double ridge = 0.2;  ///< penalty weight on the log of per-family and per-GPU factors
  int max_evaluations = 4000;
  /// Traced GEMM kernels (MeasurementSet::gemms): each fitted family's large-GEMM efficiency over the
  /// pooled one, from the kernels of the GPUs being fitted only, becomes RooflineConstants::family_gemm.
  /// None: no family_gemm (1 for every family).
  const std::vector<GemmSample>* gemm_samples = nullptr;
  const PredictorFit* start = nullptr;  ///< starting constants (default: PredictorFit{}'s, so a refit
                                        ///< reproduces the built-in one)
  std::function<void(const std::string&)> progress;  ///< told what is being fitted (may be empty)
};

/// Fits the constants on `rows` (the band is left as in the start fit).
[[nodiscard]] PredictorFit fit_predictor(const std::vector<PreparedRow>& rows,
                                         const FitOptions& options = {});

/// One row's left-out prediction.
struct LeftOutPrediction {
  const PreparedRow* row = nullptr;
  RowPrediction prediction;
};

/// Leave-one-GPU-out: for each GPU, fits on the rows of every other GPU and predicts its rows.
[[nodiscard]] std::vector<LeftOutPrediction> leave_one_gpu_out(const std::vector<PreparedRow>& rows,
                                                               const FitOptions& options = {});

/// The conformal band of `level` from left-out (unseen) and in-sample (seen) residuals (either may be empty).
[[nodiscard]] BandTable calibrate_band(const std::vector<LeftOutPrediction>& left_out,
                                       const std::vector<LeftOutPrediction>& in_sample, double level);

/// The whole procedure the built-in constants come from: fit on every row, leave-one-GPU-out, band.
/// The split-conformal quantile of residual scores at `level`: the ceil((n + 1) level)-th smallest of the n
/// scores (the largest where that passes n); 0 for none. The band's half-widths are this, with weights.
[[nodiscard]] double conformal_quantile(const std::vector<double>& scores, double level);

/// The shrinkage weight of few-shot calibration from pairs (x, y): x the mean log ratio of a group's
/// calibration runs, y the log ratio of one of its other runs: the w minimising sum (y - w x)^2, clipped to
/// [0, 1]; 0 without pairs.
[[nodiscard]] double shrinkage_weight(const std::vector<std::pair<double, double>>& pairs);

struct FitReport {
  PredictorFit fit;
  std::vector<LeftOutPrediction> left_out;
  /// Coverage of the band on each left-out GPU when its quantiles come from the other GPUs' left-out
  /// residuals only (nested, so the GPU's own residuals never set its band); each left-out prediction
  /// carries that nested band.
  std::map<std::string, double> time_coverage, power_coverage;
};
[[nodiscard]] FitReport fit_and_validate(const std::vector<PreparedRow>& rows, double level = 0.8,
                                         const FitOptions& options = {});

}  // namespace fleetwatt::models
