// Datasheet and component predictors: per-GPU epoch phases from model metadata and GPU presets.
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fleetwatt/jobs/job_classes.hpp"

namespace fleetwatt::models {
namespace {

using jobs::ConfigError;
using jobs::Precision;

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
  // The batch is split over the data-parallel replicas (tensor and pipeline groups share their samples).
  const std::uint32_t replicas = m.parallel.dp(job.n_gpus);
  if (replicas > 0 && m.batch_size < replicas)
    throw ConfigError(where, "batch_size",
                      fmt::format("global batch {} is smaller than the {} data-parallel replicas it is split "
                                  "over",
                                  m.batch_size, replicas));
  if (m.params < 0.0 || m.flops_per_sample < 0.0 || m.training_flops_per_sample < 0.0)
    throw ConfigError(where, "params", "parameters and FLOPs must not be negative");
}

/// The job's metadata with the resolved model's figures where the job is silent: the traffic the network
/// sees comes from the same parameters and input size the prediction used.
jobs::ModelMetadata resolved_metadata(const JobSpec& job, const ModelCount& m) {
  jobs::ModelMetadata meta = jobs::with_class_defaults(job);
  if (meta.params == 0.0) meta.params = m.params;
  if (meta.input_size == 0) meta.input_size = m.input_size;
  return meta;
}

/// Checkpoint of parameters and optimiser state, plus the fixed end-of-epoch work (component predictor).
double valley_seconds(double params, double bytes_per_param, double storage_Bps, double epoch_end_s) {
  return epoch_end_s + params * bytes_per_param / storage_Bps;
}

}  // namespace

ModelCount resolve_model(const jobs::ModelMetadata& meta, const jobs::SourceLocation& where) {
  ModelCount m;
  if (meta.shape.given()) {
    // A decoder given by its shape: Llama's layout with its widths, at the job's sequence length.
    if (meta.input_size == 0)
      throw ConfigError(where, "seq", "a model given by its shape needs the sequence length (seq)");
    try {
      m = decoder_from_shape(meta.shape, meta.input_size, meta.model.empty() ? "custom" : meta.model);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(where, "layers", e.what());
    }
    if (meta.params > 0.0) m.params = meta.params;
    return m;
  }
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
      const double scale = meta.flops_per_sample / m.forward_flops;
      m.activation_elements *= scale;
      // The operator classes scale alike (their weights stay: the parameter count is the job's own).
      for (auto& o : m.ops) o.flops *= scale, o.bytes *= scale;
      for (auto& o : m.head_ops) o.flops *= scale, o.bytes *= scale;
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
  m.family = named_model_family(m.name);
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

TimeSplit DatasheetPredictor::split(const JobSpec& job, const GpuHardware& gpu) const {
  return has_metadata(job) ? split(explain(job, gpu)) : TimeSplit{};
}

TimeSplit DatasheetPredictor::split(const StepBreakdown& s) noexcept {
  if (s.parallel) return {};
  return time_split(s.roofline, s.steps_per_epoch, s.step_s,
                    s.profile.epoch_s() - s.steps_per_epoch * s.step_s);
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
  const StepInputs in = step_inputs(job, s.model, p.power_limit_W, p.default_workers);

  // A model that does not fit is refused: model state by ZeRO stage and the activations kept for the
  // backward pass (or the weights and one pass's layer outputs of forward-only work),
  // models/training/llm_memory.hpp.
  const auto& par = meta.parallel;
  if (const auto [key, why] = par.pipeline_layers_problem(s.model.blocks, s.model.name); !key.empty())
    throw ConfigError(job.class_origin, key, why);
  MemoryJob mj;
  mj.parallel = par;
  mj.dp = par.dp(job.n_gpus);
  if (mj.dp == 0)
    throw ConfigError(job.class_origin, par.cp > 1 ? "cp" : "tp",
                      fmt::format("n_gpus {} is not a multiple of tp x cp x pp = {} x {} x {}", job.n_gpus,
                                  par.tp, par.cp, par.pp));
  if (const auto [key, why] = par.split_problem(s.model.input_size, mj.dp); !key.empty())
    throw ConfigError(job.class_origin, key, why);
  mj.per_replica_batch = static_cast<double>(meta.batch_size) / mj.dp;
  mj.precision = in.precision;
  mj.training = in.pass_factor > 1.0;
  mj.inference_bytes_per_param = p.inference_state_bytes_per_param;
  mj.attention = s.model.blocks > 0 ? meta.attention : jobs::Attention::eager;
  s.memory = memory_per_gpu(s.model, mj);
  s.memory_need_bytes = s.memory.total();
  if (p.check_memory && s.memory_need_bytes > gpu.memory_bytes)
    throw ConfigError(
        job.class_origin, "model",
        fmt::format(
            "{} needs {:.1f} GiB per GPU (weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, "
            "activations {:.1f} GiB at tp {} cp {} pp {} dp {} zero {} micro-batch {} recompute {}); {} has "
            "{:.0f} GiB",
            s.model.name, s.memory_need_bytes / 1073741824.0, s.memory.weights / 1073741824.0,
            s.memory.gradients / 1073741824.0, s.memory.optimizer / 1073741824.0,
            s.memory.activations / 1073741824.0, par.tp, par.cp, par.pp, mj.dp, par.zero,
            par.micro_batch_of(mj.per_replica_batch), jobs::to_string(par.recompute), gpu.id,
            gpu.memory_bytes / 1073741824.0));

  TrainingIoConfig io;
  io.comm_overlap = p.comm_overlap;
  io.checkpoint_bytes_per_param = p.checkpoint_bytes_per_param;
  const double comm_W_fraction = io.comm_power_fraction;
  auto& plan = s.plan;
  const double end_s = p.epoch_end_s.value_or(p.fit.time.epoch_end_s);
  const std::uint32_t domain =
      p.gpus_per_node > 0 ? p.gpus_per_node : (gpu.nvlink_domain_gpus > 0 ? gpu.nvlink_domain_gpus : 8u);
  const double inter = p.internode_Bps > 0.0 ? p.internode_Bps : gpu.pcie_bw_Bps;
  // The checkpoint: weights and optimiser state of every shard. Under ZeRO >= 1 every GPU writes its shard
  // (the optimiser state is sharded over the data- and context-parallel group); without, one replica's tp x
  // pp GPUs do. The writers share the storage bandwidth, each at most at its own link's rate.
  s.checkpoint_bytes = s.model.params * p.checkpoint_bytes_per_param;
  s.checkpoint_writers =
      par.zero >= 1 ? job.n_gpus
                    : static_cast<std::uint32_t>(std::min<std::uint64_t>(job.n_gpus, par.tp * par.pp));
  const double writer_bytes = s.checkpoint_bytes / s.checkpoint_writers;
  const double storage = p.storage_Bps > 0.0 ? p.storage_Bps : 1e9 * s.checkpoint_writers;
  s.checkpoint_write_s = std::max(s.checkpoint_bytes / storage, writer_bytes / inter);
  const bool async = job.schedule.checkpoint == jobs::CheckpointMode::async;
  const double host = p.host_Bps > 0.0 ? p.host_Bps : gpu.pcie_bw_Bps;
  // Asynchronously the GPUs wait only for their shard's copy to host memory (every GPU holds a shard or a
  // replica's copy of one).
  s.checkpoint_s = async ? s.model.params * p.checkpoint_bytes_per_param /
                               std::max<double>(1.0, par.zero >= 1 ? job.n_gpus : par.tp * par.pp) / host
                         : s.checkpoint_write_s;
  if (par.tp > 1 || par.pp > 1 || par.cp > 1 || par.micro_batch > 0 ||
      tensor_core_step(s.model, meta.precision)) {
    // Model parallelism, micro-batches, or a transformer on tensor cores: the 3D-parallel step
    // (models/training/llm_step_time.hpp), whatever flags describe it.
    ParallelStepJob pj;
    pj.parallel = par;
    pj.n_gpus = job.n_gpus;
    pj.global_batch = meta.batch_size;
    pj.seq = s.model.input_size;
    pj.step = in;
    pj.attention = meta.attention;
    pj.gpus_per_node = domain;
    pj.internode_Bps = inter;
    pj.io = io;
    pj.calibration = p.calibration;
    try {
      s.parallel = parallel_step(s.model, pj, gpu, p.fit.time, p.fit.power);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(job.class_origin, "micro_batch", e.what());
    }
    const ParallelStep& ps = *s.parallel;
    s.roofline = ps.micro;
    s.tp_comm_s = ps.tp_comm_s, s.cp_comm_s = ps.cp_comm_s, s.pp_comm_s = ps.pp_comm_s;
    s.dp_comm_s = ps.dp_comm_s;
    s.bubble_s = ps.bubble_s;
    s.comm_s = ps.comm_s;
    s.io_s = std::max(0.0, ps.data_s - (ps.compute_s + ps.bubble_s + ps.comm_s));
    s.step_s = ps.step_s + s.io_s;
    const RooflineStep& r = s.roofline;
    const double steps = s.steps_per_epoch;
    plan[PartKind::compute] = {steps * ps.compute_s, r.power_W};
    plan[PartKind::comm] = {steps * s.comm_s,
                            gpu.idle_W + comm_W_fraction * std::max(0.0, r.power_W - gpu.idle_W)};
    plan[PartKind::io] = {steps * s.io_s, r.floor_W};
    // Waiting for the pipeline to fill or drain, a stage GPU holds its context at the resident floor.
    plan.bubble = {steps * s.bubble_s, r.floor_W};
    plan.steps = steps;
    using jobs::CommGroup;
    plan.comm_by_group[static_cast<std::size_t>(CommGroup::tp)] = steps * ps.tp_comm_s;
    plan.comm_by_group[static_cast<std::size_t>(CommGroup::cp)] = steps * ps.cp_comm_s;
    plan.comm_by_group[static_cast<std::size_t>(CommGroup::pp)] = steps * ps.pp_comm_s;
    plan.comm_by_group[static_cast<std::size_t>(CommGroup::dp)] = steps * ps.dp_comm_s;
    plan.traffic = std::make_shared<const jobs::StepTraffic>(ps.traffic);
  } else {
    s.roofline = roofline_step(s.model, in, gpu, p.fit.time, p.fit.power);
    const RooflineStep& r = s.roofline;
    // Data parallel: ring all-reduce of the gradients, 2 (n - 1) / n of them over the slowest link, hidden
    // behind the backward pass as the training-I/O arithmetic says (the network model uses the same).
    const double replicas = mj.dp;
    if (replicas > 1) {
      const double link = gpu.nvlink_bw_Bps > 0.0 ? gpu.nvlink_bw_Bps : gpu.pcie_bw_Bps;
      const double allreduce_s =
          2.0 * (replicas - 1.0) / replicas * gradient_bytes(s.model.params, meta.precision, io) / link;
      s.comm_s = exposed_communication(r.work_s, allreduce_s, io.comm_overlap, io.backward_fraction);
    }
    s.dp_comm_s = s.comm_s;
    // Loading runs ahead of the GPU (prefetch): only what it takes beyond the step's work is a stall.
    s.io_s = std::max(0.0, r.data_s - (r.work_s + s.comm_s));
    s.step_s = r.work_s + s.comm_s + s.io_s;
    plan[PartKind::compute] = {s.steps_per_epoch * r.work_s, r.power_W};
    // Waiting on a collective, the GPU runs NCCL kernels but little else: between idle and compute power.
    plan[PartKind::comm] = {s.steps_per_epoch * s.comm_s,
                            gpu.idle_W + comm_W_fraction * std::max(0.0, r.power_W - gpu.idle_W)};
    plan[PartKind::io] = {s.steps_per_epoch * s.io_s, r.floor_W};  // starved of data: the resident floor
  }
  plan.checkpoint_bytes = s.checkpoint_bytes;
  plan.checkpoint_writers = s.checkpoint_writers;
  plan.checkpoint_async = async;
  plan.checkpoint_write_s = s.checkpoint_write_s;
  plan.checkpoint_copy_s = async ? s.checkpoint_s : 0.0;
  s.communication_heavy = s.comm_s > p.comm_heavy_fraction * s.step_s;
  plan[PartKind::checkpoint] = {end_s + s.checkpoint_s, s.roofline.floor_W};
  s.model_flops_per_step =
      model_flops_per_step(s.model, meta.batch_size, s.model.input_size, s.training_flops_per_sample);
  s.mfu = model_flops_utilisation(s.model_flops_per_step, s.step_s, job.n_gpus, gpu, meta.precision);
  plan.model = resolved_metadata(job, s.model);
  s.profile = plan.profile();
  return s;
}

EpochPlan DatasheetPredictor::plan(const JobSpec& job, const GpuHardware& gpu) const {
  if (job.phases) return EpochPlan::from_profile(*job.phases, jobs::with_class_defaults(job));
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
  // One breakdown serves the calibrated band and, without one, the dynamic share (the model resolved once).
  const StepBreakdown s = explain(job, gpu);
  // The calibrated band of time and power bounds the energy: both low, or both high.
  const PredictionBand b = band_of(job, gpu, s);
  if (b.level > 0.0) return {1.0 - b.time_low * b.power_low, b.time_high * b.power_high - 1.0};
  const double energy = s.profile.epoch_energy_J();
  const double dynamic = (s.profile.peak_W - s.profile.valley_W) * s.profile.peak_s;
  return energy_uncertainty(energy > 0.0 ? dynamic / energy : 0.0, s.communication_heavy);
}

PredictionBand DatasheetPredictor::band(const JobSpec& job, const GpuHardware& gpu) const {
  if (job.phases || !has_metadata(job)) return {};
  return band_of(job, gpu, explain(job, gpu));
}

PredictionBand DatasheetPredictor::band_of(const JobSpec& job, const GpuHardware& gpu,
                                           const StepBreakdown& s) const {
  PredictionBand b =
      prediction_band(params_.fit, gpu, band_class(s.model.family, known_by_flops_only(job.meta)),
                      in_fitted_domain(job.meta));
  // The board holds its average power at or under the limit in force (the TDP, or the predictor's lower
  // power_limit_w), so no measured average can lie above it; the calibrated factor alone would put a
  // near-limit job's high end above what the GPU can draw. Never below the prediction itself (the band always
  // holds it); the low end stays as calibrated.
  const double mean_W = s.profile.mean_W();
  const double limit_W = s.roofline.power_limit_W;
  if (b.level > 0.0 && mean_W > 0.0 && mean_W * b.power_high > limit_W) {
    b.power_high = std::max(1.0, limit_W / mean_W);
    // limit / mean x mean can round one ulp above the limit: step down until the product is at or under it.
    while (b.power_high > 1.0 && mean_W * b.power_high > limit_W)
      b.power_high = std::nextafter(b.power_high, 1.0);
  }
  return b;
}

ComponentPredictor::ComponentPredictor(ComponentPredictorParams params,
                                       std::unique_ptr<PowerPredictor> class_fallback)
    : params_(std::move(params)), fallback_(std::move(class_fallback)) {}

EpochPlan ComponentPredictor::plan(const JobSpec& job, const GpuHardware& gpu) const {
  if (job.phases) return EpochPlan::from_profile(*job.phases, jobs::with_class_defaults(job));
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
