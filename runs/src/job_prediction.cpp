// One job's prediction without a simulation (job_prediction.hpp): the request checked as the scenario's
// job keys are, the predictor's plan and working, and the JSON text of `fleetwatt predict --json`.
#include "fleetwatt/runs/job_prediction.hpp"

#include "fleetwatt/runs/option_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "fleetwatt/core/json_text.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/models/predictors/component_model.hpp"
#include "fleetwatt/models/site_predictor.hpp"
#include "fleetwatt/runs/model_shape_text.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/runs/scenario_predictor.hpp"

namespace fleetwatt::runs {

using models::DatasheetPredictor;
using models::facility_energy_J;
using models::find_gpu;
using models::GpuHardware;
using models::is_zoo_model;
using models::load_gpu_preset_file;
using models::ParallelStep;
using models::PredictorRegistry;
using models::resolve_model;
using models::zoo_entries;
using models::zoo_names;

namespace {

using jobs::ConfigError;
using jobs::Precision;

ConfigError option_error(const PredictionRequest& o, std::string_view flag, const std::string& message) {
  return ConfigError({o.origin, 0, 0}, o.option_name(flag), message);
}

Precision parse_precision(const PredictionRequest& o) {
  const std::string& s = o.precision;
  if (s == "fp32") return Precision::fp32;
  if (s == "tf32") return Precision::tf32;
  if (s == "fp16") return Precision::fp16;
  if (s == "bf16") return Precision::bf16;
  if (s == "fp8") return Precision::fp8;
  throw option_error(o, "precision", fmt::format("'{}' is not one of fp32, tf32, bf16, fp16, fp8", s));
}

/// The ranges the command line's parser checks (tools/cmd_predict.cpp), for callers without it.
void check_ranges(const PredictionRequest& o) {
  const auto in = [&](std::string_view flag, double v, double lo, double hi) {
    if (!(v >= lo && v <= hi)) throw option_error(o, flag, fmt::format("{} is not in [{}, {}]", v, lo, hi));
  };
  in("gpus", o.gpus, 1, 1u << 20);
  in("tp", o.tp, 1, 1u << 16);
  in("pp", o.pp, 1, 1u << 16);
  in("vp", o.vp, 1, 1u << 16);
  in("ep", o.ep, 1, 1u << 16);
  in("cp", o.cp, 1, 1u << 16);
  in("fsdp-shard-size", o.fsdp_shard_size, 0, 1u << 20);
  in("zero", o.zero, 0, 3);
  in("epochs", o.epochs, 1, 1u << 24);
  in("pue", o.pue, 1.0, 10.0);
  if (o.image) in("image", o.image, 1, 1u << 16);
  if (o.seq) in("seq", o.seq, 1, 1u << 24);
  for (const auto& [flag, v, most] :
       {std::tuple{"samples", o.samples, kMostSamples}, std::tuple{"params", o.params, kMostParams},
        std::tuple{"flops", o.flops, kMostFlops},
        std::tuple{"power-limit", o.power_limit, kMostPowerLimitW}}) {
    if (!(v >= 0.0)) throw option_error(o, flag, fmt::format("{} is not a positive number", v));
    if (v > most) throw option_error(o, flag, fmt::format("{} is too large (at most {:g})", v, most));
  }
}

/// The job, GPU, PUE and predictor configuration, from a scenario file or from the options.
/// `scenario_site`: a scenario's site runs as its run takes them (each group's site for its GPU type),
/// unless the request names a site file of its own.
JobPrediction build_request(const PredictionRequest& o, models::PredictorConfig& config,
                            std::shared_ptr<const models::SiteCorrection>& scenario_site) {
  JobPrediction r;
  std::vector<GpuHardware> user_gpus;
  if (!o.gpu_file.empty()) user_gpus = load_gpu_preset_file(o.gpu_file);
  const auto find = [&](const std::string& id, const jobs::SourceLocation& where, const std::string& key) {
    try {
      return find_gpu(id, user_gpus);
    } catch (const std::out_of_range& e) {
      throw ConfigError(where, key, e.what());
    }
  };
  if (!o.scenario.empty()) {
    const runs::Scenario s = runs::load_scenario(o.scenario);
    if (s.workload.jobs.empty())
      throw ConfigError({o.scenario, 0, 0}, "workload.jobs",
                        "the scenario lists no [[workload.jobs]] to predict");
    const jobs::JobSpec* job = &s.workload.jobs.front();
    if (o.job_id) {
      job = nullptr;
      for (const auto& j : s.workload.jobs)
        if (j.id == *o.job_id) job = &j;
      if (job == nullptr)
        throw option_error(o, "job", fmt::format("no job with id {} in {}", *o.job_id, o.scenario));
    }
    r.job = *job;
    r.gpu = find(s.fleet.gpu, s.fleet.gpu_origin, "gpu");
    if (s.fleet.gpu_idle_W) r.gpu.idle_W = *s.fleet.gpu_idle_W;
    if (s.fleet.gpu_tdp_W) r.gpu.tdp_W = *s.fleet.gpu_tdp_W;
    r.pue = s.facility.pue;
    // The [predictor] table as the run assembles it: with what [fleet] and [topology] say of the NVLink
    // domain, the NICs and the storage servers, so predict and run plan the job on the same links.
    config = scenario_predictor_config(s);
    r.site_file = runs::scenario_site(s, r.gpu.id).string();
    r.gpu_file = s.fleet.gpu_file.string();
    if (o.site.empty()) scenario_site = scenario_site_correction(s, o.predictor.value_or(config.kind));
    return r;
  }
  if (o.batch == 0 || !(o.samples > 0.0))
    throw option_error(o, o.batch == 0 ? "batch" : "samples",
                       fmt::format("is required (or give {})", o.option_name("scenario")));
  check_ranges(o);
  auto& m = r.job.meta;
  if (!o.model_shape.empty())
    m.shape = parse_model_shape_text(o.model_shape, o.origin, o.option_name("model-shape"));
  if (o.model.empty() && !(o.flops > 0.0) && !m.shape.given())
    throw option_error(o, "model",
                       fmt::format("give {} (one of: {}) or {} and {}", o.option_name("model"), zoo_names(),
                                   o.option_name("flops"), o.option_name("params")));
  if (!o.model.empty() && !is_zoo_model(o.model) && !(o.flops > 0.0) && !m.shape.given())
    throw option_error(o, "model", fmt::format("unknown model '{}'; known models: {}", o.model, zoo_names()));
  if (o.image && o.seq)
    throw option_error(o, "seq",
                       fmt::format("give {} or {}, not both", o.option_name("image"), o.option_name("seq")));
  for (const auto& e : zoo_entries()) {
    if (e.name != o.model) continue;
    if (o.seq && e.input_kind == "image")
      throw option_error(o, "seq", fmt::format("{} takes images: use {}", o.model, o.option_name("image")));
    if (o.image && e.input_kind == "sequence")
      throw option_error(o, "image",
                         fmt::format("{} takes sequences: use {}", o.model, o.option_name("seq")));
  }
  if (m.shape.given() && o.seq == 0)
    throw option_error(o, "seq", fmt::format("a model given by its shape needs {}", o.option_name("seq")));
  m.model = o.model.empty() && m.shape.given() ? "custom" : o.model;
  m.params = o.params;
  m.flops_per_sample = o.flops;
  m.batch_size = o.batch;
  m.dataset_samples = o.samples;
  m.input_size = o.image ? o.image : o.seq;
  m.workers = o.workers;
  m.precision = parse_precision(o);
  if (!jobs::parse_software_stack(o.stack, m.stack))
    throw option_error(o, "stack",
                       fmt::format("'{}' is not one of eager, amp, compiled, optimized", o.stack));
  // The 3D-parallel split, checked as the scenario's job keys are (runs/src/scenario_loader.cpp).
  auto& par = m.parallel;
  par.tp = o.tp, par.pp = o.pp, par.cp = o.cp, par.vp = o.vp, par.ep = o.ep, par.zero = o.zero;
  par.fsdp_shard_size = o.fsdp_shard_size;
  par.tp_comm_overlap = o.tp_comm_overlap;
  if (!jobs::parse_rank_order(o.rank_order, par.order))
    throw option_error(o, "rank-order",
                       fmt::format("'{}' is not one of tp-cp-dp-pp, tp-cp-pp-dp", o.rank_order));
  if (!jobs::parse_attention(o.attention, m.attention))
    throw option_error(o, "attention", fmt::format("'{}' is not one of fused, flash2, eager", o.attention));
  if (!jobs::parse_checkpoint_mode(o.checkpoint, r.job.schedule.checkpoint))
    throw option_error(o, "checkpoint", fmt::format("'{}' is not one of sync, async", o.checkpoint));
  par.micro_batch = o.micro_batch;
  par.first_stage_layers = o.first_stage_layers, par.last_stage_layers = o.last_stage_layers;
  if (auto [key, why] = par.pipeline_key_problem(); !key.empty()) {
    std::replace(key.begin(), key.end(), '_', '-');  // the flag's spelling; option_error gives the keyword's
    throw option_error(o, key, why);
  }
  if (!jobs::parse_recompute(o.recompute, par.recompute))
    throw option_error(o, "recompute", fmt::format("'{}' is not one of none, selective, full", o.recompute));
  const std::uint32_t dp = par.dp(o.gpus);
  if (dp == 0)
    throw option_error(o,
                       o.cp > 1   ? "cp"
                       : o.pp > 1 ? "pp"
                                  : "tp",
                       fmt::format("{} {} is not a multiple of tp x cp x pp = {} x {} x {}",
                                   o.option_name("gpus"), o.gpus, o.tp, o.cp, o.pp));
  if (dp % o.ep != 0)
    throw option_error(o, "ep", fmt::format("ep {} does not divide the data-parallel degree {}", o.ep, dp));
  if (auto [key, why] = par.split_problem(m.input_size, dp); !key.empty()) {
    std::replace(key.begin(), key.end(), '_', '-');
    throw option_error(o, key, why);
  }
  if (o.micro_batch > 0 && o.batch % (static_cast<std::uint64_t>(dp) * o.micro_batch) != 0)
    throw option_error(o, "micro-batch",
                       fmt::format("the global batch {} is not a whole number of micro-batches of {} on {} "
                                   "data-parallel replicas",
                                   o.batch, o.micro_batch, dp));
  r.job.n_gpus = o.gpus;
  r.job.epochs = o.epochs;
  r.job.class_origin = {o.origin, 0, 0};
  r.gpu = find(o.gpu, {o.origin, 0, 0}, o.option_name("gpu"));
  r.pue = o.pue;
  config.kind = o.predictor.value_or("datasheet");
  config.kind_origin = {o.origin, 0, 0};
  return r;
}

}  // namespace

std::string PredictionRequest::option_name(std::string_view flag) const {
  return runs::option_name(flag, keyword_names);
}

JobPrediction predict_job(const PredictionRequest& o) {
  models::PredictorConfig config;
  std::shared_ptr<const models::SiteCorrection> scenario_site;
  JobPrediction r = build_request(o, config, scenario_site);
  if (o.predictor) {
    config.kind = o.predictor.value_or("datasheet");
    config.kind_origin = {o.origin, 0, 0};
  }
  if (o.power_limit > 0.0) {
    if (config.kind != "datasheet")
      throw option_error(
          o, "power-limit",
          fmt::format("predictor '{}' does not model power limits; use datasheet", config.kind));
    config.params.set("power_limit_w", {o.power_limit, {o.origin, 0, 0}});
  }
  if (o.pue != 1.0) r.pue = o.pue;
  std::unique_ptr<models::PowerPredictor> predictor = PredictorRegistry::with_builtins().make(config);
  if (!o.site.empty()) r.site_file = o.site;
  const models::SitePredictor* site = nullptr;
  if (!r.site_file.empty()) {
    // Corrected to the site's runs, each predicted by this kind of predictor uncorrected (as validate does).
    const std::string gpu_file = o.gpu_file.empty() ? r.gpu_file : o.gpu_file;
    const auto correction = scenario_site
                                ? scenario_site
                                : models::load_site(r.site_file, config.kind,
                                                    gpu_file.empty() ? std::vector<GpuHardware>{}
                                                                     : load_gpu_preset_file(gpu_file));
    const double limit =
        config.params.has("power_limit_w") ? config.params.get_double("power_limit_w", 0.0) : 0.0;
    auto corrected = std::make_unique<models::SitePredictor>(std::move(predictor), correction, limit);
    site = corrected.get();
    predictor = std::move(corrected);
  }
  r.predictor = predictor->name();
  if (site) {
    r.site = site->factors(r.job, r.gpu);
    r.site_machine = site->machine(r.gpu);
    r.site_compute_scale = site->compute_scale(r.job, r.gpu);
  }
  r.plan = predictor->plan(r.job, r.gpu);
  r.profile = r.plan.profile();
  r.band = predictor->uncertainty(r.job, r.gpu);
  r.pband = predictor->band(r.job, r.gpu);

  // Counts and the datasheet working, when the job carries model metadata.
  if (const auto* ds = dynamic_cast<const DatasheetPredictor*>(site ? &site->inner() : predictor.get());
      ds != nullptr && DatasheetPredictor::has_metadata(r.job))
    r.step = ds->explain(r.job, r.gpu);
  if (DatasheetPredictor::has_metadata(r.job)) r.counts = resolve_model(r.job.meta, r.job.class_origin);

  r.epoch_s = r.profile.epoch_s();
  r.total_s = r.epoch_s * r.job.epochs;
  r.gpu_energy_J = r.profile.epoch_energy_J() * r.job.epochs * r.job.n_gpus;
  if (r.plan.checkpoint_async) {
    // The last asynchronous checkpoint's write ends the job (training finalises it), GPUs at the valley.
    r.total_s += r.plan.checkpoint_write_s;
    r.gpu_energy_J += r.plan.checkpoint_write_s * r.profile.valley_W * r.job.n_gpus;
  }
  r.facility_energy_J = facility_energy_J(r.gpu_energy_J, r.pue);
  return r;
}

std::string prediction_json(const JobPrediction& r) {
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
  using core::json_string;
  std::string out = "{";
  // JSON has no inf or NaN: a value that is not finite is written null, so the text always parses.
  const auto value = [](double v) { return core::json_number(v); };
  const auto num = [&](const char* key, double v) {
    out += fmt::format("{}\"{}\": {}", out.size() > 1 ? ", " : "", key, value(v));
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
  if (r.site) {
    // The site's correction: 0 runs when the site has none of this job's workload on its GPU.
    str("site", r.site_file);
    num("site_runs", static_cast<double>(r.site->runs));
    num("site_time_factor", r.site->time);
    num("site_power_factor", r.site->power);
    num("site_gpu_factor", r.site_machine.gpu);
    num("site_host_factor", r.site_machine.host);
    num("site_compute_scale", r.site_compute_scale);
  }
  num("tp", r.job.meta.parallel.tp);
  num("pp", r.job.meta.parallel.pp);
  num("vp", r.job.meta.parallel.vp);
  num("first_stage_layers", r.job.meta.parallel.first_stage_layers);
  num("last_stage_layers", r.job.meta.parallel.last_stage_layers);
  num("dp", r.job.meta.parallel.dp(r.job.n_gpus));
  num("ep", r.job.meta.parallel.ep);
  num("cp", r.job.meta.parallel.cp);
  num("zero", r.job.meta.parallel.zero);
  num("fsdp_shard_size", r.job.meta.parallel.shard_group(r.job.meta.parallel.dp(r.job.n_gpus)));
  str("recompute", jobs::to_string(r.job.meta.parallel.recompute));
  str("attention", jobs::to_string(r.job.meta.attention));
  str("rank_order", jobs::to_string(r.job.meta.parallel.order));
  str("checkpoint", jobs::to_string(r.job.schedule.checkpoint));
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
    // The step's breakdown (per step, seconds): exposed tensor-, context-, pipeline- and data-parallel
    // communication (and the context- and data-parallel traffic before overlap), the pipeline bubble, and the
    // model-FLOPs utilisation.
    num("compute_s", step->parallel ? step->parallel->compute_s : step->roofline.work_s);
    num("tp_comm_s", step->tp_comm_s);
    num("cp_comm_s", step->cp_comm_s);
    num("cp_comm_total_s", step->parallel ? step->parallel->cp_comm_total_s : step->cp_comm_s);
    num("pp_comm_s", step->pp_comm_s);
    num("dp_comm_s", step->dp_comm_s);
    num("dp_comm_total_s", step->parallel ? step->parallel->dp_comm_total_s : step->dp_comm_s);
    num("checkpoint_bytes", step->checkpoint_bytes);
    num("checkpoint_writers", step->checkpoint_writers);
    num("checkpoint_s", step->checkpoint_s);
    num("checkpoint_write_s", step->checkpoint_write_s);
    if (step->parallel) {
      const ParallelStep& ps = *step->parallel;
      num("micro_batch", ps.micro_batch);
      num("gemm_s", ps.gemm_s);
      num("attention_s", ps.attention_s);
      num("elementwise_s", ps.elementwise_s);
      num("gemm_efficiency", ps.gemm_efficiency);
      num("attention_efficiency", ps.attention_efficiency);
    }
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
  for (std::size_t k = 0; k < jobs::kPartKinds; ++k) {
    const auto kind = static_cast<jobs::PartKind>(k);
    parts += fmt::format("{}\"{}\": {{\"s\": {}, \"W\": {}}}", k ? ", " : "", jobs::to_string(kind),
                         value(plan[kind].s), value(plan[kind].W));
  }
  parts += fmt::format(", \"bubble\": {{\"s\": {}, \"W\": {}}}", value(plan.bubble.s), value(plan.bubble.W));
  out += fmt::format(", \"parts\": {{{}}}", parts);
  str("predictor", r.predictor);
  str("gpu_source", r.gpu.source);
  return out + "}";
}

}  // namespace fleetwatt::runs
