// Datasheet and component predictors: per-GPU epoch phases from model metadata and GPU presets.
#include "fleetwatt/models/datasheet_predictor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fleetwatt/workloads/job_classes.hpp"

namespace fleetwatt::models {
namespace {

using workloads::ConfigError;
using workloads::Precision;

bool half_precision(Precision p) {
  return p == Precision::fp16 || p == Precision::bf16 || p == Precision::fp8;
}

/// MACs per activation element of a typical CNN (ResNet-50: 4.09 G / 22.2 M = 184): estimates the activations
/// of a model known only by its FLOPs.
constexpr double kMacsPerActivation = 200.0;

void check_job(const JobSpec& job) {
  const auto& m = job.meta;
  const auto& where = job.class_origin;
  if (m.batch_size == 0) throw ConfigError(where, "batch_size", "must be at least 1");
  if (!(m.dataset_samples > 0.0) || !std::isfinite(m.dataset_samples))
    throw ConfigError(where, "dataset_samples", fmt::format("must be positive, got {}", m.dataset_samples));
  if (job.n_gpus == 0) throw ConfigError(where, "n_gpus", "must be at least 1");
  if (m.batch_size < job.n_gpus)
    throw ConfigError(where, "batch_size",
                      fmt::format("global batch {} is smaller than the {} GPUs it is split over",
                                  m.batch_size, job.n_gpus));
  if (m.params < 0.0 || m.flops_per_sample < 0.0 || m.training_flops_per_sample < 0.0)
    throw ConfigError(where, "params", "parameters and FLOPs must not be negative");
}

/// The job's metadata with the resolved model's figures where the job is silent: the traffic the network
/// sees comes from the same parameters and input size the prediction used.
workloads::ModelMetadata resolved_metadata(const JobSpec& job, const ModelCount& m) {
  workloads::ModelMetadata meta = workloads::with_class_defaults(job);
  if (meta.params == 0.0) meta.params = m.params;
  if (meta.input_size == 0) meta.input_size = m.input_size;
  return meta;
}

/// Checkpoint of parameters and optimiser state, plus the fixed end-of-epoch work.
double valley_seconds(double params, double bytes_per_param, double storage_Bps, double epoch_end_s) {
  return epoch_end_s + params * bytes_per_param / storage_Bps;
}

}  // namespace

ModelCount resolve_model(const workloads::ModelMetadata& meta, const workloads::SourceLocation& where) {
  ModelCount m;
  if (!meta.model.empty() && is_zoo_model(meta.model)) {
    try {
      m = count_model(meta.model, meta.input_size);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(where, "model", e.what());
    }
    if (meta.params > 0.0) m.params = meta.params;
    if (meta.flops_per_sample > 0.0) {
      // The job's own FLOPs (e.g. another input size or implementation): activations scale with them, as
      // both grow with the image area or sequence length.
      m.activation_elements *= meta.flops_per_sample / m.forward_flops;
      m.forward_flops = meta.flops_per_sample, m.forward_macs = meta.flops_per_sample / 2;
    }
    return m;
  }
  if (!(meta.flops_per_sample > 0.0)) {
    if (!meta.model.empty())
      throw ConfigError(where, "model",
                        fmt::format("unknown model '{}' and no flops_per_sample given; known models: {}",
                                    meta.model, zoo_names()));
    throw ConfigError(where, "model", "the job names no zoo model and gives no flops_per_sample");
  }
  if (!(meta.params > 0.0))
    throw ConfigError(where, "params", "a job that gives its own FLOPs must also give its parameter count");
  m.name = meta.model.empty() ? "custom" : meta.model;
  m.family = ModelFamily::other;
  m.params = meta.params;
  m.forward_flops = meta.flops_per_sample;
  m.forward_macs = meta.flops_per_sample / 2.0;
  m.input_size = meta.input_size;
  // Without an architecture: ~50 weight layers, two tensors each, activations from the FLOPs.
  m.weight_layers = 50;
  m.param_tensors = 100;
  m.activation_elements = m.forward_macs / kMacsPerActivation;
  return m;
}

DatasheetPredictor::DatasheetPredictor(DatasheetParams params, std::unique_ptr<PowerPredictor> class_fallback)
    : params_(std::move(params)), fallback_(std::move(class_fallback)) {}

bool DatasheetPredictor::has_metadata(const JobSpec& job) noexcept {
  return !job.meta.model.empty() || job.meta.flops_per_sample > 0.0;
}

StepBreakdown DatasheetPredictor::explain(const JobSpec& job, const GpuHardware& gpu) const {
  check_job(job);
  const auto& meta = job.meta;
  const auto& p = params_;
  StepBreakdown s;
  s.model = resolve_model(meta, job.class_origin);
  const double n = job.n_gpus;
  s.per_gpu_batch = static_cast<double>(meta.batch_size) / n;
  s.steps_per_epoch = std::ceil(meta.dataset_samples / meta.batch_size);
  s.training_flops_per_sample =
      meta.training_flops_per_sample > 0.0 ? meta.training_flops_per_sample : s.model.training_flops();
  // Work of a step relative to a full forward + backward: frozen layers skip their backward traffic too.
  const double work_ratio = s.training_flops_per_sample / s.model.training_flops();
  const bool half = half_precision(meta.precision);
  const double act_bytes = half ? 2.0 : 4.0;

  // A model that does not fit is refused: training state plus the activations kept for the backward pass.
  const double needed = p.training_state_bytes_per_param * s.model.params +
                        s.per_gpu_batch * s.model.activation_elements * act_bytes;
  if (needed > gpu.memory_bytes)
    throw ConfigError(job.class_origin, "model",
                      fmt::format("{} at batch {} per GPU needs about {:.1f} GiB per GPU (training state and "
                                  "activations); {} has {:.0f} GiB",
                                  s.model.name, s.per_gpu_batch, needed / 1073741824.0, gpu.id,
                                  gpu.memory_bytes / 1073741824.0));

  // Compute: the step's FLOPs at the efficiency of its average operation (batch FLOPs over weight layers).
  s.peak_flops = gpu.peak_flops(meta.precision);
  const double op_flops = s.per_gpu_batch * s.model.forward_flops / std::max(1u, s.model.weight_layers);
  s.efficiency = p.gemm_law.efficiency(op_flops);
  s.compute_s = s.per_gpu_batch * s.training_flops_per_sample / (s.peak_flops * s.efficiency);
  // Memory: activations read and written by the memory-bound layers (normalisation, activation, softmax).
  const double bytes_per_act =
      (s.model.family == ModelFamily::transformer || s.model.family == ModelFamily::recurrent)
          ? p.transformer_bytes_per_activation
          : p.cnn_bytes_per_activation;
  s.memory_s = work_ratio * s.per_gpu_batch * s.model.activation_elements * bytes_per_act *
               (act_bytes / 4.0) / gpu.memory_bw_Bps;
  s.overhead_s = p.step_overhead_s + p.per_tensor_overhead_s * s.model.param_tensors;
  // Data loading: images are decoded and augmented on the host by each GPU's share of the workers.
  bool image_input = false;
  for (const auto& e : zoo_entries())
    image_input = image_input || (e.name == meta.model && e.input_kind == "image");
  if (image_input) {
    const double pixels = 3.0 * s.model.input_size * s.model.input_size;
    const double workers_per_gpu = meta.workers ? meta.workers / n : static_cast<double>(p.default_workers);
    s.data_s = s.per_gpu_batch * pixels * p.data_s_per_pixel / workers_per_gpu;
  }

  // The GPU's work at full clocks, at the component model's power for its compute and memory activity.
  const double busy_s = s.compute_s + s.memory_s + s.overhead_s;
  ComponentActivity a;
  a.utilisation = s.compute_s / busy_s;
  a.memory_activity = s.memory_s / busy_s;
  a.precision = meta.precision;
  ComponentPower power = component_power(gpu, a, p.component);
  s.power_limit_W = p.power_limit_W > 0.0 ? std::min(p.power_limit_W, gpu.tdp_W) : gpu.tdp_W;
  // Above the limit the clocks drop until the draw fits: the one clock model says by how much the work
  // stretches; the GPU then draws the limit.
  const ClockModel& clock = clock_model();
  s.dvfs_slowdown = clock.stretch(power.total_W(), s.power_limit_W, gpu.tdp_W);
  const double compute_W = ClockModel::capped_power(power.total_W(), s.power_limit_W);
  if (compute_W < power.total_W()) {
    // The clock-following part (dynamic and memory/IO above the floor) shrinks to what the limit leaves.
    const double above = power.dynamic_W + power.mem_io_W;
    const double keep = above > 0.0 ? std::max(0.0, compute_W - power.idle_W) / above : 0.0;
    power.dynamic_W *= keep, power.mem_io_W *= keep;
  }
  const double work_s = busy_s * s.dvfs_slowdown;

  // Data parallel: ring all-reduce of the gradients, 2 (n - 1) / n of them over the slowest link, hidden
  // behind the backward pass as the training-I/O arithmetic says (the network model uses the same).
  TrainingIoConfig io;
  io.comm_overlap = p.comm_overlap;
  io.checkpoint_bytes_per_param = p.checkpoint_bytes_per_param;
  if (job.n_gpus > 1) {
    const double link = gpu.nvlink_bw_Bps > 0.0 ? gpu.nvlink_bw_Bps : gpu.pcie_bw_Bps;
    const double allreduce_s =
        2.0 * (n - 1.0) / n * gradient_bytes(s.model.params, meta.precision, io) / link;
    s.comm_s = exposed_communication(work_s, allreduce_s, io.comm_overlap, io.backward_fraction);
  }
  // Loading runs ahead of the GPU (prefetch): only what it takes beyond the step's work is a stall.
  s.io_s = std::max(0.0, s.data_s - (work_s + s.comm_s));
  s.step_s = work_s + s.comm_s + s.io_s;
  s.peak_power = power;
  s.communication_heavy = s.comm_s > p.comm_heavy_fraction * s.step_s;
  s.checkpoint_s = s.model.params * p.checkpoint_bytes_per_param / p.storage_Bps;

  const double floor_W = resident_floor_W(gpu, p.component);
  auto& plan = s.plan;
  plan[PartKind::compute] = {s.steps_per_epoch * work_s, compute_W};
  // Waiting on a collective, the GPU runs NCCL kernels but little else: between idle and compute power.
  plan[PartKind::comm] = {s.steps_per_epoch * s.comm_s,
                          gpu.idle_W + io.comm_power_fraction * std::max(0.0, compute_W - gpu.idle_W)};
  plan[PartKind::io] = {s.steps_per_epoch * s.io_s, floor_W};  // starved of data: the resident floor
  plan[PartKind::checkpoint] = {
      valley_seconds(s.model.params, p.checkpoint_bytes_per_param, p.storage_Bps, p.epoch_end_s), floor_W};
  plan.model = resolved_metadata(job, s.model);
  s.profile = plan.profile();
  return s;
}

EpochPlan DatasheetPredictor::plan(const JobSpec& job, const GpuHardware& gpu) const {
  if (job.phases) return EpochPlan::from_profile(*job.phases, workloads::with_class_defaults(job));
  if (!has_metadata(job)) {
    if (fallback_) return fallback_->plan(job, gpu);
    throw ConfigError(job.class_origin, "model",
                      "the datasheet predictor needs a model name or flops_per_sample (or a job class with a "
                      "table fallback)");
  }
  return explain(job, gpu).plan;
}

UncertaintyBand DatasheetPredictor::uncertainty(const JobSpec& job, const GpuHardware& gpu) const {
  if (job.phases) return {};
  if (!has_metadata(job)) {
    if (!fallback_) return {};
    // A class profile measured elsewhere gets at least the default band on its power above idle.
    const UncertaintyBand own = fallback_->uncertainty(job, gpu);
    const PhaseProfile p = fallback_->predict(job, gpu);
    const double energy = p.epoch_energy_J();
    const double dynamic =
        std::max(0.0, p.peak_W - gpu.idle_W) * p.peak_s + std::max(0.0, p.valley_W - gpu.idle_W) * p.valley_s;
    const UncertaintyBand band = energy_uncertainty(energy > 0.0 ? dynamic / energy : 0.0, false);
    return {std::max(own.low, band.low), std::max(own.high, band.high)};
  }
  const StepBreakdown s = explain(job, gpu);
  const double energy = s.profile.epoch_energy_J();
  const double dynamic = (s.profile.peak_W - s.profile.valley_W) * s.profile.peak_s;
  return energy_uncertainty(energy > 0.0 ? dynamic / energy : 0.0, s.communication_heavy);
}

ComponentPredictor::ComponentPredictor(ComponentPredictorParams params,
                                       std::unique_ptr<PowerPredictor> class_fallback)
    : params_(std::move(params)), fallback_(std::move(class_fallback)) {}

EpochPlan ComponentPredictor::plan(const JobSpec& job, const GpuHardware& gpu) const {
  if (job.phases) return EpochPlan::from_profile(*job.phases, workloads::with_class_defaults(job));
  if (!DatasheetPredictor::has_metadata(job)) {
    if (fallback_) return fallback_->plan(job, gpu);
    throw ConfigError(job.class_origin, "model",
                      "the component predictor needs a model name or flops_per_sample (or a job class with a "
                      "table fallback)");
  }
  check_job(job);
  const ModelCount m = resolve_model(job.meta, job.class_origin);
  const double train =
      job.meta.training_flops_per_sample > 0.0 ? job.meta.training_flops_per_sample : m.training_flops();
  const double v = gpu.peak_flops(job.meta.precision);
  PhaseProfile out;
  // Data parallel: each GPU does 1/n of the epoch's FLOPs.
  out.peak_s = job.meta.dataset_samples * train / job.n_gpus / (v * params_.mfu * params_.pipeline_factor);
  ComponentActivity a;
  a.utilisation = params_.utilisation;
  a.memory_activity = params_.memory_activity;
  a.precision = job.meta.precision;
  a.fusion_factor = params_.fusion_factor;
  a.pipeline_factor = params_.pipeline_factor;
  out.peak_W = component_power(gpu, a, params_.component).total_W();
  out.valley_W = resident_floor_W(gpu, params_.component);
  out.valley_s =
      valley_seconds(m.params, params_.checkpoint_bytes_per_param, params_.storage_Bps, params_.epoch_end_s);
  // The assumed MFU covers the whole step (communication and loading included): all of it is compute.
  return EpochPlan::from_profile(out, resolved_metadata(job, m));
}

UncertaintyBand ComponentPredictor::uncertainty(const JobSpec& job, const GpuHardware& gpu) const {
  if (job.phases) return {};
  if (!DatasheetPredictor::has_metadata(job))
    return fallback_ ? fallback_->uncertainty(job, gpu) : UncertaintyBand{};
  const PhaseProfile p = predict(job, gpu);
  const double energy = p.epoch_energy_J();
  const double dynamic = (p.peak_W - p.valley_W) * p.peak_s;
  return energy_uncertainty(energy > 0.0 ? dynamic / energy : 0.0, job.n_gpus > 8);
}

}  // namespace fleetwatt::models
