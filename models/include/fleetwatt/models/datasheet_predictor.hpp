// The default predictor of a fleet ("datasheet"): per-GPU epoch phases from a job's model metadata and the
// GPU's datasheet, no telemetry needed. Per training step: compute time from the training FLOPs at the
// efficiency the power law gives for the step's average operation size; memory time from the activations the
// step touches; a fixed per-step overhead (kernel launches, unfused optimiser per parameter tensor, host
// synchronisation) that dominates at small batches; an exposed data-parallel all-reduce; a data-loading bound
// from workers and image size. The epoch plan's parts: compute (the steps' GPU work, at the component
// model's power for its compute and memory activity; a power limit below that draw slows the clocks as the
// one clock model says), comm (the exposed all-reduce, between idle and compute power), io (data-loading
// stalls, at the resident floor) and checkpoint (the epoch's end - loader restart, evaluation hooks - plus
// a checkpoint of parameters and optimiser state over the storage bandwidth, at the resident floor). Jobs
// that name only a class go to a fallback (the table predictor). Constants were calibrated on the Zeus A40
// measurements; see the README for the errors.
#pragma once

#include <memory>
#include <optional>

#include "fleetwatt/models/clock_model.hpp"
#include "fleetwatt/models/component_model.hpp"
#include "fleetwatt/models/gpu_hardware.hpp"
#include "fleetwatt/models/model_zoo.hpp"
#include "fleetwatt/models/power_law.hpp"
#include "fleetwatt/models/power_predictor.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/models/training_io.hpp"

namespace fleetwatt::models {

/// Constants of the datasheet predictor; defaults calibrated on ../shared/data/zeus-nsdi23 (A40 only, at its
/// default 300 W limit; RTX 6000 and RTX 3070 are held out).
struct DatasheetParams {
  PowerLaw gemm_law{68.22, 8.50, 0.70};    ///< the paper's A100 projection law, for every GPU
  double cnn_bytes_per_activation = 49.0;  ///< DRAM bytes per activation element per step (fwd + bwd), CNNs
  double transformer_bytes_per_activation = 7.0;  ///< the same for Transformers and RNNs
  double step_overhead_s = 1.3e-3;                ///< per step: launch and host synchronisation
  double per_tensor_overhead_s = 0.14e-3;  ///< per step and parameter tensor: unfused optimiser kernels
  double data_s_per_pixel = 3.3e-8;        ///< decode + augment seconds per pixel-channel per worker
  /// Loader workers per GPU when the job does not say (the training-I/O default).
  std::uint32_t default_workers = TrainingIoConfig{}.default_workers;
  double epoch_end_s = 5.8;  ///< fixed end-of-epoch work (loader restart, hooks)
  /// Checkpoint bytes per parameter (the training-I/O default: weights + two Adam moments in FP32).
  double checkpoint_bytes_per_param = TrainingIoConfig{}.checkpoint_bytes_per_param;
  double storage_Bps = 1e9;  ///< checkpoint write bandwidth per GPU (the network re-times it on a fabric)
  /// Share of the all-reduce hidden behind the backward pass (the training-I/O default).
  double comm_overlap = TrainingIoConfig{}.comm_overlap;
  double comm_heavy_fraction = 0.2;  ///< exposed communication share of a step that makes a job comm-heavy
  double power_limit_W = 0.0;        ///< board power limit; 0 means the TDP
  double training_state_bytes_per_param = 16.0;  ///< weights, gradients, Adam moments (memory check)
  ComponentParams component{};                   ///< floor 0.18 TDP above idle; shares of the headroom
};

/// Everything the datasheet predictor worked out for one job on one GPU (what `fleetwatt predict` prints).
struct StepBreakdown {
  ModelCount model;  ///< resolved counts (zoo, or the job's own figures)
  double per_gpu_batch = 0.0;
  double steps_per_epoch = 0.0;
  double training_flops_per_sample = 0.0;
  double efficiency = 0.0;  ///< power-law efficiency of the step's average operation
  double peak_flops = 0.0;  ///< v_max for the job's precision
  /// Per step: FLOP time, memory time and fixed overhead (the GPU's work, at full clocks), the exposed
  /// all-reduce, the data-loading bound and the loading stall (the part of data_s not under the GPU's work).
  double compute_s = 0.0, memory_s = 0.0, overhead_s = 0.0, comm_s = 0.0, data_s = 0.0, io_s = 0.0;
  double step_s = 0.0;
  double dvfs_slowdown = 1.0;  ///< stretch of the GPU's work from the power limit (clock model; 1: none)
  double power_limit_W = 0.0;
  ComponentPower peak_power;  ///< the component split of peak_W
  double checkpoint_s = 0.0;
  bool communication_heavy = false;
  EpochPlan plan;        ///< the epoch's parts
  PhaseProfile profile;  ///< plan.profile()
};

/// A job's model counts: the zoo model it names (at its input size) with any figure the job gives overriding
/// the zoo's, or the job's own parameters and FLOPs. Throws workloads::ConfigError (at `where`) when it has
/// neither, or names an unknown model (listing the known ones).
[[nodiscard]] ModelCount resolve_model(const workloads::ModelMetadata& meta,
                                       const workloads::SourceLocation& where);

class DatasheetPredictor final : public PowerPredictor {
 public:
  /// `class_fallback` predicts jobs that give no model metadata (only a class); may be null.
  explicit DatasheetPredictor(DatasheetParams params = {},
                              std::unique_ptr<PowerPredictor> class_fallback = nullptr);

  [[nodiscard]] std::string_view name() const override { return "datasheet"; }
  [[nodiscard]] EpochPlan plan(const JobSpec& job, const GpuHardware& gpu) const override;
  [[nodiscard]] UncertaintyBand uncertainty(const JobSpec& job, const GpuHardware& gpu) const override;

  /// True when the job carries model metadata this predictor can use (a model name or FLOPs).
  [[nodiscard]] static bool has_metadata(const JobSpec& job) noexcept;
  /// The full working for a job with model metadata.
  [[nodiscard]] StepBreakdown explain(const JobSpec& job, const GpuHardware& gpu) const;
  [[nodiscard]] const DatasheetParams& params() const noexcept { return params_; }

 private:
  DatasheetParams params_;
  std::unique_ptr<PowerPredictor> fallback_;
};

/// The explainer's component model as a predictor ("component"): compute time from the training FLOPs at an
/// assumed model-FLOPs utilisation, power from P_idle + P_dyn + P_mem_io at an assumed SM utilisation.
struct ComponentPredictorParams {
  double mfu = 0.35;              ///< achieved fraction of peak FLOP/s
  double utilisation = 0.8;       ///< SM utilisation in the compute phase (explainer: 0.60-0.95)
  double memory_activity = 0.15;  ///< share of the memory/I-O power budget in use
  double fusion_factor = 1.0;
  double pipeline_factor = 1.0;
  double epoch_end_s = 5.8;
  double checkpoint_bytes_per_param = TrainingIoConfig{}.checkpoint_bytes_per_param;
  double storage_Bps = 1e9;
  ComponentParams component{};
};

class ComponentPredictor final : public PowerPredictor {
 public:
  explicit ComponentPredictor(ComponentPredictorParams params = {},
                              std::unique_ptr<PowerPredictor> class_fallback = nullptr);
  [[nodiscard]] std::string_view name() const override { return "component"; }
  [[nodiscard]] EpochPlan plan(const JobSpec& job, const GpuHardware& gpu) const override;
  [[nodiscard]] UncertaintyBand uncertainty(const JobSpec& job, const GpuHardware& gpu) const override;

 private:
  ComponentPredictorParams params_;
  std::unique_ptr<PowerPredictor> fallback_;
};

/// Registry entries of "datasheet" and "component" (both fall back to the table predictor's classes for jobs
/// that give only a class), with their declared [predictor] parameters.
[[nodiscard]] std::vector<PredictorEntry> first_principles_predictor_entries();

}  // namespace fleetwatt::models
