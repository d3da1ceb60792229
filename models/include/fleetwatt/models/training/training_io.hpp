// The one training-I/O parameter set and its arithmetic: gradient bytes, steps per epoch, communication
// hidden behind the backward pass, data loading overlapped with compute through prefetching, checkpoint
// size. Predictors (an epoch's comm and io parts on an idle fleet) and the network model (the same parts
// re-timed on the job's placement) both use it, so a constant such as comm_overlap has one value.
#pragma once

#include <cstdint>

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::models {

/// Data loading, checkpointing and gradient-communication parameters ([topology] keys of the same names;
/// the datasheet predictor's defaults).
struct TrainingIoConfig {
  double alpha_s = 5e-6;      ///< per-step software latency of a collective (NCCL-like, ~5 us)
  double comm_overlap = 0.7;  ///< fraction of gradient communication hidden behind backward
  double backward_fraction =
      2.0 / 3.0;                     ///< share of a step's compute that is the backward pass (2 of 3 FLOPs)
  double gradient_bytes = 0.0;       ///< bytes per gradient element; 0: from the job's precision
  double comm_power_fraction = 0.3;  ///< GPU power in exposed communication: idle + f * (peak - idle)
  double bytes_per_sample = 0.0;     ///< dataset bytes per sample; 0: 3 * input_size^2 * jpeg_ratio
  double jpeg_ratio = 0.2;           ///< stored bytes per raw pixel byte (ImageNet JPEGs ~0.2)
  double decode_rate_per_worker = 150.0;     ///< samples/s one data-loader worker decodes and augments
  std::uint32_t default_workers = 8;         ///< per GPU, when the job does not say
  std::uint32_t prefetch_depth = 2;          ///< batches loaded ahead; 0 disables the overlap
  double checkpoint_bytes_per_param = 12.0;  ///< fp32 weights (4) + Adam moments (8)
};

/// Bytes per gradient element: fp32 and tf32 keep fp32 gradients (4); fp16, bf16 and fp8 training reduce
/// gradients in 16-bit (2).
[[nodiscard]] double gradient_element_bytes(jobs::Precision p) noexcept;

/// Gradient bytes all-reduced per step: params * bytes per element (config override, else the precision's).
[[nodiscard]] double gradient_bytes(const jobs::ModelMetadata& meta, const TrainingIoConfig& config) noexcept;
/// The same for `params` parameters trained in `precision`.
[[nodiscard]] double gradient_bytes(double params, jobs::Precision precision,
                                    const TrainingIoConfig& config) noexcept;

/// ceil(samples / global batch); at least 1.
[[nodiscard]] std::uint64_t steps_per_epoch(double samples, std::uint32_t global_batch) noexcept;

/// Exposed communication of one step: the part of comm_s not hidden behind the backward pass. At most
/// overlap * comm_s can be hidden, and no more than the backward pass lasts (backward_fraction * compute_s).
[[nodiscard]] double exposed_communication(double compute_s, double comm_s, double overlap,
                                           double backward_fraction) noexcept;

/// Dataset bytes per sample: the config's bytes_per_sample, else 3 * input_size^2 * jpeg_ratio (an RGB
/// image of that side, compressed), else 4 bytes per token when the input is a sequence (a language model
/// by name - bert, gpt, llama, t5, ... - or a size above 1024).
[[nodiscard]] double bytes_per_sample(const jobs::ModelMetadata& meta,
                                      const TrainingIoConfig& config) noexcept;

struct LoadingCost {
  double rate_samples_per_s = 0.0;  ///< achieved loading rate
  double load_s = 0.0;              ///< time to load one epoch's data
  double exposed_s = 0.0;           ///< loading time not hidden behind compute
};

/// One epoch of data loading: samples at min(storage share / bytes per sample, workers * decode rate).
/// With prefetch depth >= 1 loading runs under compute: only the excess over compute and the first batch
/// (the pipeline fill) are exposed; with depth 0 loading and compute alternate and all of it is exposed.
[[nodiscard]] LoadingCost epoch_loading(double samples, double sample_bytes, double share_Bps, double workers,
                                        double decode_rate_per_worker, double compute_s,
                                        std::uint32_t prefetch_depth, std::uint64_t steps) noexcept;

/// Checkpoint size: params * checkpoint_bytes_per_param (weights + optimiser state).
[[nodiscard]] double checkpoint_bytes(const jobs::ModelMetadata& meta,
                                      const TrainingIoConfig& config) noexcept;

}  // namespace fleetwatt::models
