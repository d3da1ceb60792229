// The default predictor's constants: the roofline's efficiencies and costs, the power model's floors and
// saturations, and the calibrated prediction band, as the joint fit on ../shared/data wrote them
// (models/data/predictor_fit.toml, compiled in). Predictors read these; how they are fitted lives apart, in
// models/fit/predictor_fit.hpp, so a predictor never includes its fitting.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"

namespace fleetwatt::models {

/// Band half-widths: quantiles of |ln(measured / predicted)| at `level`, per group ("seen/cnn",
/// "unseen/transformer", ...: whether the GPU was in the fit, and the workload's power class).
struct BandTable {
  double level = 0.8;
  std::set<std::string> seen_gpus;  ///< GPUs with measurements in the fit
  std::map<std::string, double> time, power;
};

/// How a site's own measured runs correct predictions there (models/site_correction.hpp), as few-shot
/// calibration with one run per (GPU, workload) measured it on the fitting data: the shrinkage weights of a
/// group's factor, exp(w x the mean log(measured / predicted) of its runs), for a job that repeats a run's
/// batch and power limit and for one that varies them; and the band's half-widths, |ln(measured /
/// corrected)| at the band's level, of predictions so corrected: over all of them, and (`_varied`, at
/// least as wide) over those that vary a run's batch or power limit. Without a [site] table: weights 1
/// (the runs' factor as measured) and no band of its own.
struct SiteShrinkage {
  double time_repeat = 1.0, time_varied = 1.0;
  double power_repeat = 1.0, power_varied = 1.0;
  double time_band = 0.0, power_band = 0.0;
  double time_band_varied = 0.0, power_band_varied = 0.0;
};

struct PredictorFit {
  RooflineConstants time;
  UtilisationPowerConstants power;
  BandTable band;
  SiteShrinkage site;
  std::string provenance;  ///< what it was fitted on (a line)
  /// Nuisance constants of the fitting data, not of the predictor: the per-sample work (x the stated) of
  /// workloads known only by FLOPs quoted at an unstated input size (GAISSA's Keras models). Only ratios
  /// between GPUs of such a workload inform the physics; a workload seen on one GPU informs nothing else.
  std::map<std::string, double> workload_work;
};

/// The built-in fit (models/data/predictor_fit.toml).
[[nodiscard]] const PredictorFit& default_predictor_fit();
/// Parses a fit file; throws core::ConfigError naming file, line and key.
[[nodiscard]] PredictorFit parse_predictor_fit(std::string_view toml_text, const std::string& file);
/// The TOML text parse_predictor_fit reads back (constants to 6 significant digits).
[[nodiscard]] std::string format_predictor_fit(const PredictorFit& fit);

/// The band group of a prediction (see BandTable).
[[nodiscard]] std::string band_group(bool seen, PowerClass c);
/// The calibrated band of a job of `c` on `gpu` (precisions other than FP32 and fused stacks are outside the
/// fitted data: they take the unseen-GPU band).
[[nodiscard]] PredictionBand prediction_band(const PredictorFit& fit, const GpuHardware& gpu, PowerClass c,
                                             bool in_fitted_domain);

}  // namespace fleetwatt::models
