// The default predictor of a fleet ("datasheet"): per-GPU epoch parts from a job's model metadata and the
// GPU's datasheet, no telemetry needed. Per training step: the roofline over operator classes with kernel
// launches (models/hardware/roofline.hpp), power from the achieved fraction of the roofline between the
// resident floor and the saturation power, capped by the power limit through the one clock model; an exposed
// data-parallel all-reduce; a data-loading stall from workers and image size. The epoch plan's parts:
// compute (the steps' GPU work), comm (the exposed all-reduce, between idle and compute power), io
// (loading stalls, at the resident floor) and checkpoint (the epoch's fixed end plus a checkpoint of
// parameters and optimiser state over the storage bandwidth, at the resident floor). Constants come from the
// joint fit on ../shared/data (models/predictors/predictor_constants.hpp; fitted by
// models/fit/predictor_fit.hpp), with a band calibrated leaving one GPU out. Jobs that name only a class go
// to a fallback (the table predictor).
#pragma once

#include <memory>
#include <optional>

#include "fleetwatt/models/hardware/clock_model.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/hardware/time_split.hpp"
#include "fleetwatt/models/predictors/component_model.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/models/predictors/predictor_constants.hpp"
#include "fleetwatt/models/predictors/predictor_entry.hpp"
#include "fleetwatt/models/training/llm_memory.hpp"
#include "fleetwatt/models/training/llm_step_time.hpp"
#include "fleetwatt/models/training/power_law.hpp"
#include "fleetwatt/models/training/training_io.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models {

/// Settings of the datasheet predictor. The physics' constants are the joint fit
/// (models/predictors/predictor_constants.hpp); the rest are the training-I/O settings a scenario may change.
struct DatasheetParams {
  PredictorFit fit = default_predictor_fit();  ///< roofline, power and band constants
  /// Loader workers per GPU when the job does not say (the training-I/O default).
  std::uint32_t default_workers = TrainingIoConfig{}.default_workers;
  std::optional<double> epoch_end_s;  ///< fixed end-of-epoch work; unset: the fit's
  /// Checkpoint bytes per parameter (the training-I/O default: weights + two Adam moments in FP32).
  double checkpoint_bytes_per_param = TrainingIoConfig{}.checkpoint_bytes_per_param;
  /// Storage bandwidth a job's checkpoint writers share (bytes/s; [predictor] storage_gbytes_per_s; the
  /// storage servers on a fabric): a checkpoint takes its bytes over it, or longer where its writers' own
  /// links (internode_Bps each) are slower.
  double storage_Bps = 0.0;  ///< 0: 1 GB/s per GPU that writes a shard
  /// Asynchronous checkpoints: each GPU copies its shard to host memory at this rate before the steps go on
  /// (bytes/s; 0: the GPU preset's PCIe figure).
  double host_Bps = 0.0;
  /// Share of the all-reduce hidden behind the backward pass (the training-I/O default).
  double comm_overlap = TrainingIoConfig{}.comm_overlap;
  double comm_heavy_fraction = 0.2;  ///< exposed communication share of a step that makes a job comm-heavy
  double power_limit_W = 0.0;        ///< board power limit; 0 means the TDP
  double inference_state_bytes_per_param = 4.0;  ///< weights only (memory check of forward-only work)
  /// Refuse a job whose memory per GPU exceeds the GPU's (false: predict it all the same; published runs
  /// that fit by means the model does not know, such as activation offloading, are compared that way).
  bool check_memory = true;
  /// The 3D-parallel step's calibration on published step times (models/training/step_calibration.hpp).
  StepCalibration calibration = default_step_calibration();
  /// GPUs of one NVLink domain (an HGX / DGX board; a GB200 NVL72 rack): tensor-parallel groups up to this
  /// size, and other parallel groups inside it, use NVLink; 0: the GPU preset's nvlink_domain_gpus, else 8.
  std::uint32_t gpus_per_node = 0;
  /// Inter-node bandwidth per GPU and direction, bytes/s; 0: the GPU preset's PCIe figure (GPU-direct
  /// RDMA through the node's NICs cannot exceed it).
  double internode_Bps = 0.0;
};

/// Everything the datasheet predictor worked out for one job on one GPU (what `fleetwatt predict` prints).
struct StepBreakdown {
  ModelCount model;  ///< resolved counts (zoo, or the job's own figures)
  double per_gpu_batch = 0.0;
  double steps_per_epoch = 0.0;
  double training_flops_per_sample = 0.0;
  RooflineStep roofline;  ///< the step on one GPU: class times, launches, power, clock stretch, loading
  /// Per step: the exposed all-reduce and the loading stall (the part of data loading not under the work).
  double comm_s = 0.0, io_s = 0.0;
  double step_s = 0.0;
  /// The 3D-parallel step (models/training/llm_step_time.hpp) of a job with tp or pp > 1 or a micro-batch;
  /// empty for a plain data-parallel job, whose step is the one-GPU roofline and an exposed all-reduce.
  std::optional<ParallelStep> parallel;
  double tp_comm_s = 0.0, cp_comm_s = 0.0, pp_comm_s = 0.0,
         dp_comm_s = 0.0;             ///< per step, exposed (comm_s: sum)
  double bubble_s = 0.0;              ///< per step: pipeline fill and drain
  double model_flops_per_step = 0.0;  ///< without recomputation (models/training/llm_step_time.hpp)
  double mfu = 0.0;                   ///< model FLOPs per step / (step_s x n_gpus x peak of the precision)
  /// The checkpoint: its bytes (every shard), the GPUs writing a shard, the GPUs' stall (sync: the write;
  /// async: the copy to host memory) and the write's own time over the storage bandwidth.
  double checkpoint_bytes = 0.0;
  std::uint32_t checkpoint_writers = 0;
  double checkpoint_s = 0.0;
  double checkpoint_write_s = 0.0;
  MemoryBreakdown memory;          ///< per GPU: weights, gradients, optimiser state, activations
  double memory_need_bytes = 0.0;  ///< memory.total()
  bool communication_heavy = false;
  EpochPlan plan;        ///< the epoch's parts
  PhaseProfile profile;  ///< plan.profile()
};

/// A job's model counts: the zoo model it names (at its input size) with any figure the job gives overriding
/// the zoo's, or the job's own parameters and FLOPs. Throws jobs::ConfigError (at `where`) when it has
/// neither, or names an unknown model (listing the known ones).
[[nodiscard]] ModelCount resolve_model(const jobs::ModelMetadata& meta, const jobs::SourceLocation& where);

class DatasheetPredictor final : public PowerPredictor {
 public:
  /// `class_fallback` predicts jobs that give no model metadata (only a class); may be null.
  explicit DatasheetPredictor(DatasheetParams params = {},
                              std::unique_ptr<PowerPredictor> class_fallback = nullptr);

  [[nodiscard]] std::string_view name() const override { return "datasheet"; }
  [[nodiscard]] EpochPlan plan(const JobSpec& job, const GpuHardware& gpu) const override;
  [[nodiscard]] UncertaintyBand uncertainty(const JobSpec& job, const GpuHardware& gpu) const override;
  /// The calibrated band of the job's group, its high power clamped so that the average power's high end
  /// stays at or under the power limit in force (the TDP, or power_limit_w when lower).
  [[nodiscard]] PredictionBand band(const JobSpec& job, const GpuHardware& gpu) const override;

  /// True when the job carries model metadata this predictor can use (a model name or FLOPs).
  [[nodiscard]] static bool has_metadata(const JobSpec& job) noexcept;
  /// The full working for a job with model metadata.
  [[nodiscard]] StepBreakdown explain(const JobSpec& job, const GpuHardware& gpu) const;
  /// What sets the job's epoch time: its step's GPU work and kernel launches, the rest of the step and the
  /// epoch's end. Unknown for a 3D-parallel step, whose host and GPU times are not one overlap, and for a
  /// job without metadata.
  [[nodiscard]] TimeSplit split(const JobSpec& job, const GpuHardware& gpu) const;
  /// The split of a breakdown already worked out.
  [[nodiscard]] static TimeSplit split(const StepBreakdown& s) noexcept;
  [[nodiscard]] const DatasheetParams& params() const noexcept { return params_; }

 private:
  /// band() from a breakdown already worked out (uncertainty() shares one with it).
  [[nodiscard]] PredictionBand band_of(const JobSpec& job, const GpuHardware& gpu,
                                       const StepBreakdown& s) const;

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
