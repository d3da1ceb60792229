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
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"
#include "fleetwatt/runs/job_prediction.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"

namespace fleetwatt::tools {
namespace {

using jobs::ConfigError;

/// The request and how to print it.
struct PredictOptions : runs::PredictionRequest {
  bool json = false;
};

int predict(const PredictOptions& o) {
  const runs::JobPrediction r = runs::predict_job(o);
  if (o.json) {
    std::cout << runs::prediction_json(r) << '\n';
    return 0;
  }
  const jobs::PhaseProfile& p = r.profile;
  const auto& step = r.step;
  const auto& counts = r.counts;
  const auto& band = r.band;
  const auto& pband = r.pband;
  const auto& plan = r.plan;
  const double epoch_s = r.epoch_s, total_s = r.total_s, gpu_energy = r.gpu_energy_J,
               facility = r.facility_energy_J;
  const double params = counts ? counts->params : 0.0;
  const double flops = counts ? counts->forward_flops : 0.0;

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
        "activations {:.2f} (tp {} cp {} pp {} vp {} dp {} ep {}, ZeRO {}{}, recompute {}, attention {})\n",
        mem.total() / GiB, r.gpu.memory_bytes / GiB, mem.weights / GiB, mem.gradients / GiB,
        mem.optimizer / GiB, mem.activations / GiB, par.tp, par.cp, par.pp, par.vp, par.dp(r.job.n_gpus),
        par.ep, par.zero,
        par.zero >= 3 && par.shard_group(par.dp(r.job.n_gpus)) < par.dp(r.job.n_gpus)
            ? fmt::format(" sharded in {}", par.shard_group(par.dp(r.job.n_gpus)))
            : "",
        jobs::to_string(par.recompute), jobs::to_string(r.job.meta.attention));
  }
  if (step && step->parallel) {
    const auto& ps = *step->parallel;
    std::cout << fmt::format(
        "step       {:.4g} s: compute {:.4g} s ({:.4g} micro-batches of {:.4g} x {:.4g} ms on the slowest "
        "stage, of "
        "{:.4g} layers, optimiser {:.4g} ms), TP comm {:.4g} s, CP comm exposed {:.4g} s (of {:.4g} s), PP "
        "comm {:.4g} s, DP comm exposed {:.4g} s "
        "(of {:.4g} s), bubble {:.4g} s ({:.1f} %), loading stall {:.4g} s; {:.0f} steps per epoch\n",
        step->step_s, ps.compute_s, ps.micro_batches, ps.micro_batch, 1e3 * ps.micro_batch_s, ps.pace_layers,
        1e3 * ps.optimizer_s, ps.tp_comm_s, ps.cp_comm_s, ps.cp_comm_total_s, ps.pp_comm_s, ps.dp_comm_s,
        ps.dp_comm_total_s, ps.bubble_s, 100.0 * ps.bubble_fraction, step->io_s, step->steps_per_epoch);
    if (ps.gemm_s > 0.0)
      std::cout << fmt::format(
          "kernels    a micro-batch: GEMMs {:.4g} ms at {:.1f} % of peak ({}), attention {:.4g} ms at {:.1f} "
          "%, element-wise {:.4g} ms (full clocks)\n",
          1e3 * ps.gemm_s, 100.0 * ps.gemm_efficiency, ps.efficiency_rule, 1e3 * ps.attention_s,
          100.0 * ps.attention_efficiency, 1e3 * ps.elementwise_s);
    std::cout << fmt::format(
        "checkpoint {:.4g} GB by {} GPUs: the GPUs wait {:.4g} s ({}), the write takes {:.4g} s\n",
        step->checkpoint_bytes / 1e9, step->checkpoint_writers, step->checkpoint_s,
        jobs::to_string(r.job.schedule.checkpoint), step->checkpoint_write_s);
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
      plan[jobs::PartKind::compute].s, plan[jobs::PartKind::compute].W, plan[jobs::PartKind::comm].s,
      plan[jobs::PartKind::comm].W, plan[jobs::PartKind::io].s, plan[jobs::PartKind::io].W, plan.bubble.s,
      plan.bubble.W, plan[jobs::PartKind::checkpoint].s, plan[jobs::PartKind::checkpoint].W);
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
  std::cout << fmt::format("predictor  {}; GPU preset {} ({})\n", r.predictor, r.gpu.id, r.gpu.source);
  if (r.site) {
    if (r.site_machine != models::MachineFactors{})
      std::cout << fmt::format(
          "machine    {}'s {}: GPU work x {:.4f}, kernel launches x {:.4f} (fitted on all its runs there): "
          "the compute part's time x {:.4f}\n",
          r.site_file, r.gpu.id, r.site_machine.gpu, r.site_machine.host, r.site_compute_scale);
    if (r.site->runs > 0)
      std::cout << fmt::format(
          "site       {}: {} run(s) of {} on {}: every part's time x {:.4f}, power x {:.4f} (below the "
          "limit); the step and power lines above are the datasheet's own working\n",
          r.site_file, r.site->runs, models::site_workload(r.job), r.gpu.id, r.site->time, r.site->power);
    else
      std::cout << fmt::format(
          "site       {}: no run of {} on {}: the predictor's {}\n", r.site_file,
          models::site_workload(r.job).empty() ? "this job" : models::site_workload(r.job), r.gpu.id,
          r.site_machine != models::MachineFactors{} ? "prediction at the machine's speeds (above)"
                                                     : "own prediction");
  }
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
      "  fleetwatt predict --model llama3_70b --gpu h100-sxm --gpus 64 --tp 4 --pp 4 --cp 2 --vp 5 --batch "
      "128 "
      "--seq 8192 --samples 128 --precision fp8 --stack optimized --zero 1\n"
      "  fleetwatt predict --model resnet50 --gpu a40 --batch 128 --samples 50000 --site lab.toml\n"
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
  cmd->add_option("--vp", o->vp,
                  "Virtual stages per pipeline GPU: the interleaved 1F1B schedule above 1 (needs --pp >= 2)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 16));
  cmd->add_option("--first-stage-layers", o->first_stage_layers,
                  "Transformer layers on the first pipeline stage (default: the even share; needs --pp >= 2)")
      ->check(CLI::Range(1u, 1u << 16));
  cmd->add_option(
         "--last-stage-layers", o->last_stage_layers,
         "Transformer layers on the last pipeline stage, which also runs the output head (default: the "
         "even share; needs --pp >= 2)")
      ->check(CLI::Range(1u, 1u << 16));
  cmd->add_option("--cp", o->cp,
                  "Context-parallel degree: each sequence split over cp GPUs (ring attention; divides the "
                  "sequence into 2 cp chunks)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 16));
  cmd->add_option(
         "--fsdp-shard-size", o->fsdp_shard_size,
         "ZeRO-3 hybrid sharding: shard within this many data-parallel ranks, replicate across (needs "
         "--zero 3; divides dp)")
      ->check(CLI::Range(1u, 1u << 20));
  cmd->add_option(
         "--attention", o->attention,
         "Attention kernels: fused (FlashAttention 3, cuDNN; default), flash2 (FlashAttention 2) or eager "
         "(scores in memory)")
      ->capture_default_str();
  cmd->add_option(
         "--checkpoint", o->checkpoint,
         "Checkpoints: sync (the GPUs wait for the write) or async (only for the copy to host memory)")
      ->capture_default_str();
  cmd->add_option("--tp-comm-overlap", o->tp_comm_overlap,
                  "Overlap tensor-parallel traffic with the GEMMs, true or false (default: true with the "
                  "optimized stack)");
  cmd->add_option("--rank-order", o->rank_order,
                  "Rank layout, innermost first: tp-cp-dp-pp (Megatron's default) or tp-cp-pp-dp")
      ->capture_default_str();
  cmd->add_option("--model-shape", o->model_shape,
                  "A decoder by its shape, e.g. layers=80,hidden=8192,heads=64,kv_heads=8,ffn_hidden=28672,"
                  "vocab=128256 (also experts, top_k, gated_mlp); needs --seq");
  cmd->add_option("--ep", o->ep, "Expert-parallel degree (mixture-of-experts models; divides dp)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 16));
  cmd->add_option("--zero", o->zero, "ZeRO stage 0-3 (3 = FSDP)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 3u));
  cmd->add_option("--micro-batch", o->micro_batch,
                  "Sequences per micro-batch (default: 1 with a pipeline, else the per-replica batch)")
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
  cmd->add_option("--site", o->site,
                  "Site file of measured runs (calibrate --site): correct the prediction to that site");
  cmd->add_flag("--json", o->json, "Print one JSON object (SI units) instead of text");
  cmd->callback([&action, o] { action = [o] { return predict(*o); }; });
}

}  // namespace fleetwatt::tools
