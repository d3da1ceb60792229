// `fleetwatt predict`: one job's per-GPU phase profile, epoch and total time, GPU and facility energy with
// its uncertainty band, from flags or from a job of a scenario file, with the predictor and presets that made
// it.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <optional>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/datasheet_predictor.hpp"
#include "fleetwatt/models/gpu_hardware.hpp"
#include "fleetwatt/models/model_zoo.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/workloads/scenario_loader.hpp"

namespace fleetwatt::tools {
namespace {

using workloads::ConfigError;
using workloads::Precision;

struct PredictOptions {
  std::string model, gpu = "a100-sxm-80gb", precision = "fp32", stack = "eager";
  std::optional<std::string> predictor;  ///< default: datasheet, or the scenario's
  std::string scenario, gpu_file;
  std::optional<std::int64_t> job_id;
  std::uint32_t gpus = 1, batch = 0, image = 0, seq = 0, epochs = 1, workers = 0;
  std::uint32_t tp = 1, pp = 1, ep = 1, zero = 0, micro_batch = 0;
  std::string recompute = "none";
  double samples = 0.0, params = 0.0, flops = 0.0, pue = 1.0, power_limit = 0.0;
  bool json = false;
};

ConfigError flag_error(const std::string& flag, const std::string& message) {
  return ConfigError({"command line", 0, 0}, flag, message);
}

Precision parse_precision(const std::string& s) {
  if (s == "fp32") return Precision::fp32;
  if (s == "tf32") return Precision::tf32;
  if (s == "fp16") return Precision::fp16;
  if (s == "bf16") return Precision::bf16;
  if (s == "fp8") return Precision::fp8;
  throw flag_error("--precision", fmt::format("'{}' is not one of fp32, tf32, bf16, fp16, fp8", s));
}

/// The job, GPU, PUE and predictor configuration, from a scenario file or from the flags.
struct Request {
  workloads::JobSpec job;
  models::GpuHardware gpu;
  double pue = 1.0;
  workloads::PredictorConfig predictor;
};

Request build_request(const PredictOptions& o) {
  Request r;
  std::vector<models::GpuHardware> user_gpus;
  if (!o.gpu_file.empty()) user_gpus = models::load_gpu_preset_file(o.gpu_file);
  const auto find_gpu = [&](const std::string& id, const workloads::SourceLocation& where) {
    try {
      return models::find_gpu(id, user_gpus);
    } catch (const std::out_of_range& e) {
      throw ConfigError(where, "gpu", e.what());
    }
  };
  if (!o.scenario.empty()) {
    const workloads::Scenario s = workloads::load_scenario(o.scenario);
    if (s.workload.jobs.empty())
      throw ConfigError({o.scenario, 0, 0}, "workload.jobs",
                        "the scenario lists no [[workload.jobs]] to predict");
    const workloads::JobSpec* job = &s.workload.jobs.front();
    if (o.job_id) {
      job = nullptr;
      for (const auto& j : s.workload.jobs)
        if (j.id == *o.job_id) job = &j;
      if (job == nullptr)
        throw flag_error("--job", fmt::format("no job with id {} in {}", *o.job_id, o.scenario));
    }
    r.job = *job;
    r.gpu = find_gpu(s.fleet.gpu, s.fleet.gpu_origin);
    if (s.fleet.gpu_idle_W) r.gpu.idle_W = *s.fleet.gpu_idle_W;
    if (s.fleet.gpu_tdp_W) r.gpu.tdp_W = *s.fleet.gpu_tdp_W;
    r.pue = s.facility.pue;
    r.predictor = s.predictor;
    return r;
  }
  if (o.model.empty() && !(o.flops > 0.0))
    throw flag_error("--model",
                     fmt::format("give --model (one of: {}) or --flops and --params", models::zoo_names()));
  if (!o.model.empty() && !models::is_zoo_model(o.model) && !(o.flops > 0.0))
    throw flag_error("--model",
                     fmt::format("unknown model '{}'; known models: {}", o.model, models::zoo_names()));
  if (o.image && o.seq) throw flag_error("--seq", "give --image or --seq, not both");
  for (const auto& e : models::zoo_entries()) {
    if (e.name != o.model) continue;
    if (o.seq && e.input_kind == "image")
      throw flag_error("--seq", fmt::format("{} takes images: use --image", o.model));
    if (o.image && e.input_kind == "sequence")
      throw flag_error("--image", fmt::format("{} takes sequences: use --seq", o.model));
  }
  auto& m = r.job.meta;
  m.model = o.model;
  m.params = o.params;
  m.flops_per_sample = o.flops;
  m.batch_size = o.batch;
  m.dataset_samples = o.samples;
  m.input_size = o.image ? o.image : o.seq;
  m.workers = o.workers;
  m.precision = parse_precision(o.precision);
  if (!workloads::parse_software_stack(o.stack, m.stack))
    throw flag_error("--stack", fmt::format("'{}' is not one of eager, amp, compiled, optimized", o.stack));
  // The 3D-parallel split, checked as the scenario's job keys are (workloads/scenario_loader.cpp).
  auto& par = m.parallel;
  par.tp = o.tp, par.pp = o.pp, par.ep = o.ep, par.zero = o.zero, par.micro_batch = o.micro_batch;
  if (!workloads::parse_recompute(o.recompute, par.recompute))
    throw flag_error("--recompute", fmt::format("'{}' is not one of none, selective, full", o.recompute));
  const std::uint32_t dp = par.dp(o.gpus);
  if (dp == 0)
    throw flag_error(o.pp > 1 ? "--pp" : "--tp",
                     fmt::format("--gpus {} is not a multiple of tp x pp = {} x {}", o.gpus, o.tp, o.pp));
  if (dp % o.ep != 0)
    throw flag_error("--ep", fmt::format("ep {} does not divide the data-parallel degree {}", o.ep, dp));
  if (o.micro_batch > 0 && o.batch % (static_cast<std::uint64_t>(dp) * o.micro_batch) != 0)
    throw flag_error("--micro-batch",
                     fmt::format("the global batch {} is not a whole number of micro-batches of {} on {} "
                                 "data-parallel replicas",
                                 o.batch, o.micro_batch, dp));
  r.job.n_gpus = o.gpus;
  r.job.epochs = o.epochs;
  r.job.class_origin = {"command line", 0, 0};
  r.gpu = find_gpu(o.gpu, {"command line", 0, 0});
  r.pue = o.pue;
  r.predictor.kind = o.predictor.value_or("datasheet");
  r.predictor.kind_origin = {"command line", 0, 0};
  return r;
}

int predict(const PredictOptions& o) {
  Request r = build_request(o);
  if (o.predictor) {
    r.predictor.kind = *o.predictor;
    r.predictor.kind_origin = {"command line", 0, 0};
  }
  if (o.power_limit > 0.0) {
    if (r.predictor.kind != "datasheet")
      throw flag_error(
          "--power-limit",
          fmt::format("predictor '{}' does not model power limits; use datasheet", r.predictor.kind));
    r.predictor.params.set("power_limit_w", {o.power_limit, {"command line", 0, 0}});
  }
  if (o.pue != 1.0) r.pue = o.pue;
  const auto predictor = models::PredictorRegistry::with_builtins().make(r.predictor);
  const workloads::EpochPlan plan = predictor->plan(r.job, r.gpu);
  const workloads::PhaseProfile p = plan.profile();
  const models::UncertaintyBand band = predictor->uncertainty(r.job, r.gpu);
  const models::PredictionBand pband = predictor->band(r.job, r.gpu);

  // Counts and the datasheet working, when the job carries model metadata.
  std::optional<models::StepBreakdown> step;
  if (const auto* ds = dynamic_cast<const models::DatasheetPredictor*>(predictor.get());
      ds != nullptr && models::DatasheetPredictor::has_metadata(r.job))
    step = ds->explain(r.job, r.gpu);
  std::optional<models::ModelCount> counts;
  if (models::DatasheetPredictor::has_metadata(r.job))
    counts = models::resolve_model(r.job.meta, r.job.class_origin);

  const double epoch_s = p.epoch_s();
  const double total_s = epoch_s * r.job.epochs;
  const double gpu_energy = p.epoch_energy_J() * r.job.epochs * r.job.n_gpus;
  const double facility = models::facility_energy_J(gpu_energy, r.pue);
  const double params = counts ? counts->params : 0.0;
  const double flops = counts ? counts->forward_flops : 0.0;

  if (o.json) {
    std::string out = "{";
    const auto num = [&](const char* key, double v) {
      out += fmt::format("{}\"{}\": {}", out.size() > 1 ? ", " : "", key, v);
    };
    const auto str = [&](const char* key, std::string_view v) {
      out += fmt::format("{}\"{}\": {}", out.size() > 1 ? ", " : "", key, json_string(v));
    };
    str("model", counts ? counts->name : r.job.job_class);
    str("gpu", r.gpu.id);
    num("n_gpus", r.job.n_gpus);
    num("epochs", r.job.epochs);
    num("params", params);
    num("flops_per_sample", flops);
    num("training_flops_per_sample",
        step ? step->training_flops_per_sample : (counts ? counts->training_flops() : 0.0));
    num("peak_W", p.peak_W);
    num("peak_s", p.peak_s);
    num("valley_W", p.valley_W);
    num("valley_s", p.valley_s);
    num("epoch_s", epoch_s);
    num("avg_power_W", p.mean_W());
    num("total_s", total_s);
    num("gpu_energy_J", gpu_energy);
    num("facility_energy_J", facility);
    num("pue", r.pue);
    num("energy_low_J", gpu_energy * (1.0 - band.low));
    num("energy_high_J", gpu_energy * (1.0 + band.high));
    num("facility_energy_low_J", facility * (1.0 - band.low));
    num("facility_energy_high_J", facility * (1.0 + band.high));
    // The calibrated band (level 0: the predictor has none; then low = high = the prediction).
    num("band_level", pband.level);
    num("epoch_s_low", epoch_s * pband.time_low);
    num("epoch_s_high", epoch_s * pband.time_high);
    num("avg_power_low_W", p.mean_W() * pband.power_low);
    num("avg_power_high_W", p.mean_W() * pband.power_high);
    num("tp", r.job.meta.parallel.tp);
    num("pp", r.job.meta.parallel.pp);
    num("dp", r.job.meta.parallel.dp(r.job.n_gpus));
    num("ep", r.job.meta.parallel.ep);
    num("zero", r.job.meta.parallel.zero);
    str("recompute", workloads::to_string(r.job.meta.parallel.recompute));
    if (counts && counts->blocks > 0)
      num("training_flops_per_token", counts->training_flops_per_token(counts->input_size));
    if (step) {
      num("memory_per_gpu_bytes", step->memory.total());
      num("memory_weights_bytes", step->memory.weights);
      num("memory_gradients_bytes", step->memory.gradients);
      num("memory_optimizer_bytes", step->memory.optimizer);
      num("memory_activations_bytes", step->memory.activations);
      num("step_s", step->step_s);
      num("steps_per_epoch", step->steps_per_epoch);
      // The step's breakdown (per step, seconds): exposed tensor-, pipeline- and data-parallel
      // communication, the pipeline bubble, and the model-FLOPs utilisation.
      num("compute_s", step->parallel ? step->parallel->compute_s : step->roofline.work_s);
      num("tp_comm_s", step->tp_comm_s);
      num("pp_comm_s", step->pp_comm_s);
      num("dp_comm_s", step->dp_comm_s);
      num("bubble_s", step->bubble_s);
      num("bubble_fraction", step->parallel ? step->parallel->bubble_fraction : 0.0);
      num("micro_batches", step->parallel ? step->parallel->micro_batches : 1.0);
      num("model_flops_per_step", step->model_flops_per_step);
      num("mfu", step->mfu);
      num("achieved_fraction", step->roofline.achieved);
      num("launch_s", step->roofline.launch_s);
      num("floor_W", step->roofline.floor_W);
      num("saturation_W", step->roofline.saturation_W);
      num("power_limit_W", step->roofline.power_limit_W);
    }
    // The epoch's parts, per GPU, summing to epoch_s.
    std::string parts;
    for (std::size_t k = 0; k < workloads::kPartKinds; ++k) {
      const auto kind = static_cast<workloads::PartKind>(k);
      parts += fmt::format("{}\"{}\": {{\"s\": {}, \"W\": {}}}", k ? ", " : "", workloads::to_string(kind),
                           plan[kind].s, plan[kind].W);
    }
    parts += fmt::format(", \"bubble\": {{\"s\": {}, \"W\": {}}}", plan.bubble.s, plan.bubble.W);
    out += fmt::format(", \"parts\": {{{}}}", parts);
    str("predictor", predictor->name());
    str("gpu_source", r.gpu.source);
    std::cout << out << "}\n";
    return 0;
  }

  std::cout << fmt::format("job        {} on {} x {} ({}), {} epoch(s)\n",
                           counts ? counts->name : r.job.job_class, r.job.n_gpus, r.gpu.id, r.gpu.name,
                           r.job.epochs);
  if (counts)
    std::cout << fmt::format(
        "model      {:.0f} parameters, {:.4g} GFLOP forward per sample (1 MAC = 2 FLOP), "
        "{:.4g} GFLOP per training sample\n",
        params, flops / 1e9, (step ? step->training_flops_per_sample : counts->training_flops()) / 1e9);
  if (counts && counts->blocks > 0)
    std::cout << fmt::format(
        "llm        {:.4g} active parameters, {:.4g} GFLOP per training token at {} tokens (6 N + 12 L s "
        "d)\n",
        counts->active_params > 0.0 ? counts->active_params : counts->params,
        counts->training_flops_per_token(counts->input_size) / 1e9, counts->input_size);
  if (step) {
    const auto& par = r.job.meta.parallel;
    const auto& mem = step->memory;
    constexpr double GiB = 1073741824.0;
    std::cout << fmt::format(
        "memory     {:.2f} GiB per GPU of {:.0f}: weights {:.2f}, gradients {:.2f}, optimizer {:.2f}, "
        "activations {:.2f} (tp {} pp {} dp {} ep {}, ZeRO {}, recompute {})\n",
        mem.total() / GiB, r.gpu.memory_bytes / GiB, mem.weights / GiB, mem.gradients / GiB,
        mem.optimizer / GiB, mem.activations / GiB, par.tp, par.pp, par.dp(r.job.n_gpus), par.ep, par.zero,
        workloads::to_string(par.recompute));
  }
  if (step && step->parallel) {
    const auto& ps = *step->parallel;
    std::cout << fmt::format(
        "step       {:.4g} s: compute {:.4g} s ({:.4g} micro-batches of {:.4g} x {:.4g} ms on a stage of "
        "{:.4g} layers, optimiser {:.4g} ms), TP comm {:.4g} s, PP comm {:.4g} s, DP comm exposed {:.4g} s "
        "(of {:.4g} s), bubble {:.4g} s ({:.1f} %), loading stall {:.4g} s; {:.0f} steps per epoch\n",
        step->step_s, ps.compute_s, ps.micro_batches, ps.micro_batch, 1e3 * ps.micro_batch_s,
        ps.layers_per_stage, 1e3 * ps.optimizer_s, ps.tp_comm_s, ps.pp_comm_s, ps.dp_comm_s,
        ps.dp_comm_total_s, ps.bubble_s, 100.0 * ps.bubble_fraction, step->io_s, step->steps_per_epoch);
  }
  if (step) {
    std::cout << fmt::format(
        "mfu        {:.1f} % ({:.4g} model PFLOP per step / (step x {} GPUs x {:.4g} "
        "TFLOP/s peak))\n",
        100.0 * step->mfu, step->model_flops_per_step / 1e15, r.job.n_gpus,
        r.gpu.peak_flops(r.job.meta.precision) / 1e12);
  }
  if (step && !step->parallel) {
    const auto& rl = step->roofline;
    std::string classes;
    for (std::size_t c = 0; c < models::kOpClasses; ++c)
      classes +=
          fmt::format("{} {:.4g}, ", models::to_string(static_cast<models::OpClass>(c)), 1e3 * rl.class_s[c]);
    std::cout << fmt::format(
        "step       {:.4g} ms: roofline {:.4g} ms ({}optimiser {:.4g}), kernel launches {:.4g} ms, "
        "all-reduce "
        "{:.4g} ms, loading stall {:.4g} ms; {:.0f} steps per epoch\n",
        1e3 * step->step_s, 1e3 * rl.bound_s * rl.stretch, classes, 1e3 * rl.optimizer_s,
        1e3 * rl.launch_s * rl.stretch, 1e3 * step->comm_s, 1e3 * step->io_s, step->steps_per_epoch);
  }
  if (step) {
    const auto& rl = step->roofline;  // of one micro-batch on a stage GPU for a model-parallel job
    std::cout << fmt::format(
        "power      {:.1f} W = floor {:.1f} + (saturation {:.1f} - floor) x g({:.3f} of the step at a "
        "roofline "
        "bound) (limit {:.0f} W{})\n",
        rl.power_W, rl.floor_W, rl.saturation_W, rl.achieved, rl.power_limit_W,
        rl.stretch > 1.0
            ? fmt::format(", capped from {:.1f} W, work stretched x{:.3f}", rl.full_clock_W, rl.stretch)
            : "");
  }
  std::cout << fmt::format(
      "phases     peak {:.1f} W for {:.1f} s, valley {:.1f} W for {:.1f} s (per GPU, per epoch)\n", p.peak_W,
      p.peak_s, p.valley_W, p.valley_s);
  std::cout << fmt::format(
      "parts      compute {:.1f} s at {:.1f} W, comm {:.1f} s at {:.1f} W, io {:.1f} s at {:.1f} W, "
      "bubble {:.1f} s at {:.1f} W, checkpoint {:.1f} s at {:.1f} W\n",
      plan[workloads::PartKind::compute].s, plan[workloads::PartKind::compute].W,
      plan[workloads::PartKind::comm].s, plan[workloads::PartKind::comm].W, plan[workloads::PartKind::io].s,
      plan[workloads::PartKind::io].W, plan.bubble.s, plan.bubble.W, plan[workloads::PartKind::checkpoint].s,
      plan[workloads::PartKind::checkpoint].W);
  std::cout << fmt::format("epoch      {:.1f} s, average {:.1f} W per GPU\n", epoch_s, p.mean_W());
  std::cout << fmt::format("total      {:.1f} s ({:.2f} h)\n", total_s, total_s / 3600.0);
  std::cout << fmt::format(
      "energy     GPUs {:.4g} J ({:.2f} kWh), band {:.4g} .. {:.4g} J (-{:.1f} % / +{:.1f} %)\n", gpu_energy,
      gpu_energy / 3.6e6, gpu_energy * (1 - band.low), gpu_energy * (1 + band.high), 100 * band.low,
      100 * band.high);
  if (pband.level > 0.0)
    std::cout << fmt::format(
        "band       {:.0f} %: epoch {:.1f} .. {:.1f} s, average power {:.1f} .. {:.1f} W\n",
        100 * pband.level, epoch_s * pband.time_low, epoch_s * pband.time_high, p.mean_W() * pband.power_low,
        p.mean_W() * pband.power_high);
  std::cout << fmt::format("facility   {:.4g} J ({:.2f} kWh) at PUE {:.3g}\n", facility, facility / 3.6e6,
                           r.pue);
  std::cout << fmt::format("predictor  {}; GPU preset {} ({})\n", predictor->name(), r.gpu.id, r.gpu.source);
  return 0;
}

}  // namespace

void add_predict_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand(
      "predict", "Predict one job's per-GPU phases, time and energy from its model and GPU (no simulation)");
  cmd->footer(
      "Example:\n  fleetwatt predict --model resnet50 --gpu a100-sxm-80gb --gpus 4 --batch 256 --image 224 "
      "--samples 1281167 --epochs 90 --pue 1.15\n"
      "FLOPs count 2 per multiply-accumulate; a training step costs 3 forward passes.");
  cmd->add_option("--model", o->model, "Zoo model (see `fleetwatt list`), or a name for --params/--flops");
  cmd->add_option("--gpu", o->gpu, "GPU preset id (see `fleetwatt list`)")->capture_default_str();
  cmd->add_option("--gpu-file", o->gpu_file, "TOML file of extra GPU presets ([[gpu]] tables)");
  cmd->add_option("--gpus", o->gpus, "GPUs the job uses (tp x pp x dp; data parallel by default)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--batch", o->batch, "Global batch size, samples (sequences)")
      ->check(CLI::Range(1u, 1u << 30));
  cmd->add_option("--tp", o->tp, "Tensor-parallel degree (with sequence parallelism)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 16));
  cmd->add_option("--pp", o->pp, "Pipeline-parallel stages")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 16));
  cmd->add_option("--ep", o->ep, "Expert-parallel degree (mixture-of-experts models; divides dp)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 16));
  cmd->add_option("--zero", o->zero, "ZeRO stage 0-3 (3 = FSDP)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 3u));
  cmd->add_option("--micro-batch", o->micro_batch,
                  "Sequences per micro-batch (default: the per-replica batch)")
      ->check(CLI::Range(1u, 1u << 30));
  cmd->add_option("--recompute", o->recompute, "Activation recomputation: none, selective or full")
      ->capture_default_str();
  cmd->add_option("--image", o->image, "Image side, pixels (image models)")->check(CLI::Range(1u, 1u << 16));
  cmd->add_option("--seq", o->seq, "Sequence length, tokens (sequence models)")
      ->check(CLI::Range(1u, 1u << 24));
  cmd->add_option("--samples", o->samples, "Samples per epoch")->check(CLI::PositiveNumber);
  cmd->add_option("--epochs", o->epochs, "Epochs")->capture_default_str()->check(CLI::Range(1u, 1u << 24));
  cmd->add_option("--workers", o->workers, "Data-loader workers (0: the predictor's default)");
  cmd->add_option("--params", o->params, "Trainable parameters (for a model not in the zoo)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--flops", o->flops, "Forward FLOPs per sample (for a model not in the zoo)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--precision", o->precision, "Training precision: fp32, tf32, bf16, fp16 or fp8")
      ->capture_default_str();
  cmd->add_option("--stack", o->stack, "Software stack: eager, amp, compiled (fused) or optimized (vendor)")
      ->capture_default_str();
  cmd->add_option("--power-limit", o->power_limit, "GPU power limit, W (below the TDP it caps peak power)")
      ->check(CLI::PositiveNumber);
  cmd->add_option(
      "--predictor", o->predictor,
      "Predictor name (see `fleetwatt list`); default datasheet, or the scenario's with --scenario");
  cmd->add_option("--pue", o->pue, "Facility PUE for the facility energy")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 10.0));
  cmd->add_option("--scenario", o->scenario, "Take the job, GPU, PUE and predictor from this scenario TOML");
  cmd->add_option("--job", o->job_id, "With --scenario: the id of the job to predict (default: the first)");
  cmd->add_flag("--json", o->json, "Print one JSON object (SI units) instead of text");
  cmd->callback([&action, o] {
    action = [o] {
      if (o->scenario.empty() && (o->batch == 0 || !(o->samples > 0.0)))
        throw ConfigError({"command line", 0, 0}, o->batch == 0 ? "--batch" : "--samples",
                          "is required (or give --scenario)");
      return predict(*o);
    };
  });
}

}  // namespace fleetwatt::tools
