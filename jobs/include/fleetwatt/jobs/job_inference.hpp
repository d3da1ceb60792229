// Filling what a trace does not record. Public cluster traces give arrival, size, run time and status but
// never the model, batch size, dataset size or epochs a predictor needs; those are drawn from documented,
// seeded priors and flagged in JobSpec::inferred. Where a trace records a run time, the epoch count (and,
// when it too was inferred, the dataset size) is chosen so that the predicted run time equals the recorded
// one, so replaying the trace reproduces its load. The predictor lives in models/, which jobs must
// not depend on: the caller passes the prediction in as a RuntimeEstimate.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/jobs/random.hpp"

namespace fleetwatt::jobs {

/// Predicted run time (s) of a job on an idle fleet: epochs x predicted epoch time. Supplied by the caller
/// (tools/ wires the scenario's predictor and GPU); must be positive and increase with epochs and data.
using RuntimeEstimate = std::function<double(const JobSpec&)>;

/// One model a trace job may be assumed to train, and the ranges its missing metadata is drawn from.
struct ModelPrior {
  std::string job_class;                   ///< class for class-based predictors ("vit", "bert")
  std::string model;                       ///< model-zoo name ("vit-b16", "bert-base")
  double params = 0.0;                     ///< trainable parameters
  double flops_per_sample = 0.0;           ///< forward FLOPs per sample
  std::vector<std::uint32_t> batch_sizes;  ///< global batch size, drawn uniformly from these
  double samples_min = 0.0;                ///< dataset size (samples per epoch), drawn log-uniformly
  double samples_max = 0.0;
  std::uint32_t input_size = 0;  ///< image side or sequence length
  Precision precision = Precision::fp32;
  double weight = 1.0;  ///< relative share of jobs
};

/// The priors: which models trace jobs are assumed to train, and how many epochs.
struct InferenceConfig {
  /// Default: ViT-B/16 on ImageNet-1k subsets and BERT-base on text corpora, half each (see job_inference.cpp
  /// for the figures and their sources). Both match the built-in classes of the table predictor.
  std::vector<ModelPrior> models = default_model_priors();
  std::uint32_t epochs_min = 1;  ///< epochs drawn log-uniformly in [min, max] when no run time is recorded
  std::uint32_t epochs_max = 100;
  /// Most epochs a run-time match may choose; longer jobs get a larger dataset instead.
  std::uint32_t match_epochs_max = 1000;

  [[nodiscard]] static std::vector<ModelPrior> default_model_priors();
};

/// Fills every field whose bit is set in `missing` (bits of namespace `inferred`) from the priors, and ORs
/// those bits into job.inferred. Draws a fixed number of variates per call, so one job's draws do not shift
/// another's.
void infer_missing(JobSpec& job, std::uint32_t missing, const InferenceConfig& config, Random& rng);

/// Sets job.epochs (and, when the dataset size was inferred, job.meta.dataset_samples) so that
/// estimate(job) equals target_s: epochs = round(target / epoch time) clamped to [1, match_epochs_max], then
/// the dataset is rescaled by secant steps until the estimate meets the target (exact in one step when epoch
/// time is affine in the dataset size). Returns the final relative error
/// |estimate - target| / target (0 when exact; larger when the dataset was given and only epochs can move).
/// Records target_s in job.matched_runtime_s.
double match_runtime(JobSpec& job, double target_s, const RuntimeEstimate& estimate,
                     const InferenceConfig& config);

}  // namespace fleetwatt::jobs
