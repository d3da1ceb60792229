// The one table of built-in job classes: what "vit" and "bert" mean wherever a job names a class. The
// table predictor takes their measured phases, predictors and the network fill a class job's missing
// metadata (model, parameters, input size, batch, workers, dataset) from it, and trace inference draws
// its model priors from it, so the three can no longer disagree (BERT's sequence length once did).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::jobs {

struct JobClassInfo {
  std::string name;                       ///< "vit", "bert"
  std::string model;                      ///< model-zoo name
  double params = 0.0;                    ///< trainable parameters
  double flops_per_sample = 0.0;          ///< forward FLOPs per sample at input_size
  std::uint32_t input_size = 0;           ///< image side (pixels) or sequence length (tokens)
  std::uint32_t batch_size = 0;           ///< global batch of the measured runs
  std::uint32_t workers = 0;              ///< data-loader workers of the measured runs (whole job)
  double reference_samples = 0.0;         ///< samples per epoch of the measured runs
  Precision precision = Precision::fp16;  ///< what trace jobs of this class are assumed to train in
  PhaseProfile reference;                 ///< measured per-GPU epoch phases at reference_samples (4 x A800)
  const char* source = "";
};

/// The built-in classes, in a stable order.
[[nodiscard]] const std::vector<JobClassInfo>& builtin_job_classes();
/// The class named `name`, or null.
[[nodiscard]] const JobClassInfo* find_job_class(const std::string& name) noexcept;

/// The job's metadata with what its class (if a built-in one) says filled in where the job is silent:
/// model, parameters, input size, batch, workers and dataset size. Other jobs' metadata is unchanged.
[[nodiscard]] ModelMetadata with_class_defaults(const JobSpec& job);

}  // namespace fleetwatt::jobs
