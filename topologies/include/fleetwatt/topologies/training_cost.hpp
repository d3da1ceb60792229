// Data-parallel training step and epoch cost: gradient bytes, steps per epoch, communication hidden behind
// the backward pass, and data loading from shared storage overlapped with compute through prefetching.
#pragma once

#include <cstdint>

#include "fleetwatt/topologies/topology_config.hpp"
#include "fleetwatt/workloads/job_spec.hpp"

namespace fleetwatt::topologies {

/// Bytes per gradient element: fp32 and tf32 keep fp32 gradients (4); fp16, bf16 and fp8 training reduce
/// gradients in 16-bit (2).
[[nodiscard]] double gradient_element_bytes(workloads::Precision p) noexcept;

/// Gradient bytes all-reduced per step: params * bytes per element (config override, else the precision's).
[[nodiscard]] double gradient_bytes(const workloads::ModelMetadata& meta,
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
[[nodiscard]] double bytes_per_sample(const workloads::ModelMetadata& meta,
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
[[nodiscard]] double checkpoint_bytes(const workloads::ModelMetadata& meta,
                                      const TrainingIoConfig& config) noexcept;

}  // namespace fleetwatt::topologies
