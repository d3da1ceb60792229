// Priors for what traces do not record, and run-time matching.
#include "fleetwatt/jobs/job_inference.hpp"

#include "fleetwatt/jobs/job_classes.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fleetwatt::jobs {

std::vector<ModelPrior> InferenceConfig::default_model_priors() {
  // The built-in job classes (job_classes.cpp has the figures and their sources), half each. Datasets:
  // ViT on ImageNet-1k subsets up to its 1,281,167 training images, batch sizes as used on 1-8 GPU jobs;
  // BERT on 1e5..1e7 sequences (fine-tuning sets to a Wikipedia shard). Mixed precision.
  std::vector<ModelPrior> priors;
  for (const auto& c : builtin_job_classes()) {
    const bool vit = c.name == "vit";
    priors.push_back(
        {c.name, c.model, c.params, c.flops_per_sample,
         vit ? std::vector<std::uint32_t>{128, 256, 512, 1024} : std::vector<std::uint32_t>{32, 64, 128, 256},
         1.0e5, vit ? 1281167.0 : 1.0e7, c.input_size, c.precision, 1.0});
  }
  return priors;
}

namespace {

// Index drawn with probability proportional to weight, from one uniform variate (so the number of draws per
// job is fixed).
std::size_t pick(const std::vector<ModelPrior>& priors, double u) {
  double total = 0.0;
  for (const auto& p : priors) total += std::max(0.0, p.weight);
  double acc = 0.0;
  for (std::size_t i = 0; i < priors.size(); ++i) {
    acc += std::max(0.0, priors[i].weight) / total;
    if (u < acc) return i;
  }
  return priors.size() - 1;
}

double log_uniform(double lo, double hi, double u) {
  if (!(lo > 0.0) || !(hi > lo)) return lo;
  return std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo)));
}

}  // namespace

void infer_missing(JobSpec& job, std::uint32_t missing, const InferenceConfig& config, Random& rng) {
  // Always four draws, whatever is missing, so that jobs stay independent of each other's fields.
  const double u_model = rng.uniform(), u_batch = rng.uniform(), u_samples = rng.uniform(),
               u_epochs = rng.uniform();
  if (config.models.empty()) throw std::invalid_argument("inference needs at least one model prior");
  const ModelPrior& prior = config.models[pick(config.models, u_model)];
  if (missing & inferred::job_class) job.job_class = prior.job_class;
  if (missing & inferred::model) {
    job.meta.model = prior.model;
    job.meta.params = prior.params;
    job.meta.flops_per_sample = prior.flops_per_sample;
    job.meta.input_size = prior.input_size;
  }
  if (missing & inferred::precision) job.meta.precision = prior.precision;
  if ((missing & inferred::batch_size) && !prior.batch_sizes.empty()) {
    const auto i =
        std::min(prior.batch_sizes.size() - 1,
                 static_cast<std::size_t>(u_batch * static_cast<double>(prior.batch_sizes.size())));
    job.meta.batch_size = prior.batch_sizes[i];
  }
  if (missing & inferred::dataset_samples)
    job.meta.dataset_samples = std::round(log_uniform(prior.samples_min, prior.samples_max, u_samples));
  if (missing & inferred::epochs) {
    const double e = log_uniform(config.epochs_min, config.epochs_max + 1.0, u_epochs);
    job.epochs = std::clamp(static_cast<std::uint32_t>(e), config.epochs_min, config.epochs_max);
  }
  job.inferred |= missing;
}

double match_runtime(JobSpec& job, double target_s, const RuntimeEstimate& estimate,
                     const InferenceConfig& config) {
  if (!(target_s > 0.0)) throw std::invalid_argument("match_runtime: the target run time must be positive");
  job.matched_runtime_s = target_s;
  job.epochs = 1;
  const double epoch_s = estimate(job);
  if (!(epoch_s > 0.0) || !std::isfinite(epoch_s))
    throw std::invalid_argument("match_runtime: the run-time estimate must be positive and finite");
  const double n =
      std::clamp(std::round(target_s / epoch_s), 1.0, static_cast<double>(config.match_epochs_max));
  job.epochs = static_cast<std::uint32_t>(n);
  double predicted = epoch_s * n;
  if ((job.inferred & inferred::dataset_samples) && job.meta.dataset_samples > 0.0) {
    // Epoch time grows with the dataset. A proportional step, then secant steps: exact in one step for
    // predictors whose epoch time is affine in the dataset size (a per-sample cost plus a fixed cost).
    double s0 = job.meta.dataset_samples, p0 = estimate(job);
    double s1 = s0 * target_s / p0;
    job.meta.dataset_samples = s1;
    double p1 = estimate(job);
    for (int k = 0; k < 20 && std::fabs(p1 - target_s) > 1e-12 * target_s && p1 != p0; ++k) {
      double next = s1 + (target_s - p1) * (s1 - s0) / (p1 - p0);
      if (!(next > 0.0) || !std::isfinite(next)) next = s1 * 0.5;  // the fixed cost alone exceeds the target
      s0 = s1;
      p0 = p1;
      s1 = next;
      job.meta.dataset_samples = s1;
      p1 = estimate(job);
    }
    predicted = p1;
  }
  return std::fabs(predicted - target_s) / target_s;
}

}  // namespace fleetwatt::jobs
