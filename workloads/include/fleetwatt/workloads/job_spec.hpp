// What a training job is, as the workload knows it: arrival, size, length, and the metadata a predictor
// needs. Times here are seconds (the input boundary); the engine converts them to its integer clock once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fleetwatt/workloads/input_error.hpp"

namespace fleetwatt::workloads {

/// Per-GPU power square wave of one epoch: a compute (peak) phase, then a checkpoint/sync/eval (valley)
/// phase.
struct PhaseProfile {
  double peak_W = 0.0;
  double peak_s = 0.0;
  double valley_W = 0.0;
  double valley_s = 0.0;

  [[nodiscard]] double epoch_s() const noexcept { return peak_s + valley_s; }
  /// Mean per-GPU power over one epoch.
  [[nodiscard]] double mean_W() const noexcept {
    const double t = epoch_s();
    return t > 0.0 ? (peak_W * peak_s + valley_W * valley_s) / t : 0.0;
  }
  /// Per-GPU energy of one epoch.
  [[nodiscard]] double epoch_energy_J() const noexcept { return peak_W * peak_s + valley_W * valley_s; }

  friend bool operator==(const PhaseProfile&, const PhaseProfile&) = default;
};

/// Numeric precision a job trains in; predictors use it for throughput and power factors.
enum class Precision { fp32, tf32, fp16, bf16, fp8 };

/// Metadata of the model and data a job trains on (what the task-metadata predictors read).
/// Zero means "not given"; predictors fill what they can from a model zoo or a job class.
struct ModelMetadata {
  std::string model;              ///< zoo name ("resnet50", "vit-b16", ...) or empty
  double params = 0.0;            ///< trainable parameters
  double flops_per_sample = 0.0;  ///< forward-pass FLOPs per sample (see README for the FLOP convention)
  double training_flops_per_sample = 0.0;  ///< FLOPs of one sample's training step; 0: 3 x forward (full
                                           ///< backward); about 1 x forward when a frozen backbone is fine-tuned
  std::uint32_t batch_size = 0;   ///< global batch size, samples
  double dataset_samples = 0.0;   ///< samples per epoch
  std::uint32_t input_size = 0;   ///< image side (pixels) or sequence length (tokens)
  std::uint32_t workers = 0;      ///< data-loader workers
  Precision precision = Precision::fp32;
};

/// One job of the workload.
struct JobSpec {
  std::int64_t id = 0;
  std::string job_class;        ///< job class for class-based predictors; empty when phases are explicit
  SourceLocation class_origin;  ///< where job_class was written, for "unknown job class" errors
  double submit_s = 0.0;
  std::uint32_t n_gpus = 1;
  std::uint32_t epochs = 1;
  ModelMetadata meta;
  std::optional<PhaseProfile> phases;  ///< explicit per-epoch phases; overrides any predictor
};

}  // namespace fleetwatt::workloads
