// One job's prediction without a simulation, as `fleetwatt predict` prints it and fleetwatt.predict() returns
// it: the request (a model and GPU from flags or keywords, or a job of a scenario file), the predictor's plan
// with its counts, step breakdown, energy and bands, and the one JSON text both print.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/models/site_correction.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"
#include "fleetwatt/runs/scenario.hpp"

namespace fleetwatt::runs {

/// The largest samples, params, flops and power_limit a request takes: above them the prediction's times and
/// energies are no longer finite numbers (a quadrillion samples or parameters, 10^24 FLOP a sample, a
/// megawatt), far beyond any real job.
inline constexpr double kMostSamples = 1e15, kMostParams = 1e15, kMostFlops = 1e24, kMostPowerLimitW = 1e6;

/// What to predict: `fleetwatt predict`'s options (docs/predictors.md), with their defaults.
struct PredictionRequest {
  std::string model, gpu = "a100-sxm-80gb", precision = "fp32", stack = "eager";
  std::optional<std::string> predictor;  ///< default: datasheet, or the scenario's
  std::string scenario, gpu_file;
  /// A site file (models/site_file.hpp): the prediction corrected to that site's measured runs. Default: a
  /// scenario's [fleet] site.
  std::string site;
  std::optional<std::int64_t> job_id;
  std::uint32_t gpus = 1, batch = 0, image = 0, seq = 0, epochs = 1, workers = 0;
  std::uint32_t tp = 1, pp = 1, cp = 1, vp = 1, ep = 1, zero = 0, micro_batch = 0, fsdp_shard_size = 0;
  std::uint32_t first_stage_layers = 0, last_stage_layers = 0;
  std::string recompute = "none", attention = "fused", checkpoint = "sync", rank_order = "tp-cp-dp-pp";
  /// A decoder given by its shape: "layers=80,hidden=8192,heads=64,kv_heads=8,ffn_hidden=28672,vocab=128256"
  /// (keys as a scenario's; experts, top_k, gated_mlp too); the model is then named by `model` or "custom".
  std::string model_shape;
  std::optional<bool> tp_comm_overlap;  ///< unset: on with the optimized stack
  double samples = 0.0, params = 0.0, flops = 0.0, pue = 1.0, power_limit = 0.0;

  /// Where errors say the request came from, and how they name an option: the command line names
  /// `--micro-batch`, Python's predict() the keyword `micro_batch`.
  std::string origin = "command line";
  bool keyword_names = false;
  [[nodiscard]] std::string option_name(std::string_view flag) const;
};

/// The request resolved and predicted.
struct JobPrediction {
  jobs::JobSpec job;
  models::GpuHardware gpu;
  double pue = 1.0;
  std::string predictor;  ///< the predictor's name
  jobs::EpochPlan plan;
  jobs::PhaseProfile profile;
  models::UncertaintyBand band;
  models::PredictionBand pband;
  std::optional<models::StepBreakdown> step;  ///< the datasheet working, for a job with model metadata
  std::optional<models::ModelCount> counts;
  /// The site file the prediction was corrected to (empty: none) and what it corrected this job by.
  std::string site_file;
  std::optional<models::SiteCorrection::Factors> site;
  /// The site's machine of this GPU (models/hardware/time_split.hpp) and what it re-times the compute by.
  models::MachineFactors site_machine;
  double site_compute_scale = 1.0;
  /// The scenario's GPU presets file, where the job came from a scenario.
  std::string gpu_file;
  double epoch_s = 0.0, total_s = 0.0, gpu_energy_J = 0.0, facility_energy_J = 0.0;
};

/// Checks the request (jobs::ConfigError naming the option, or the scenario's file and key) and
/// predicts it.
[[nodiscard]] JobPrediction predict_job(const PredictionRequest& request);

/// The prediction as one JSON object (SI units; keys in docs/predictors.md, "predict --json").
[[nodiscard]] std::string prediction_json(const JobPrediction& p);

}  // namespace fleetwatt::runs
