// Scenario TOML -> typed Scenario. The only translation unit that knows the scenario schema; the
// "Scenario reference" of docs/scenario.md documents the same keys.
#include "fleetwatt/runs/scenario_loader.hpp"
#include "scenario_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "fleetwatt/core/checked_integer.hpp"
#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/core/timestamp.hpp"
#include "fleetwatt/core/toml_table.hpp"
#include "fleetwatt/jobs/cluster_presets.hpp"
#include "fleetwatt/jobs/job_generator.hpp"
#include "fleetwatt/jobs/jobs_csv.hpp"
#include "fleetwatt/jobs/trace.hpp"
#include "fleetwatt/models/site_file.hpp"
#include "fleetwatt/runs/model_shape_text.hpp"
#include "fleetwatt/runs/scenario_override.hpp"
#include "fleetwatt/sim/fleet/fleet_layout.hpp"
#include "fleetwatt/sim/serving/service_scheduler.hpp"

namespace fleetwatt::runs {

using jobs::cluster_preset;
using jobs::ConfigError;
using jobs::GeneratorConfig;
using jobs::guess_trace_format;
using jobs::JobSpec;
using jobs::kMaxExpectedArrivals;
using jobs::MixEntry;
using jobs::ModelMetadata;
using jobs::ParamSpecs;
using jobs::ParamValue;
using jobs::parse_attention;
using jobs::parse_checkpoint_mode;
using jobs::parse_rank_order;
using jobs::parse_smoothing_mode;
using jobs::parse_trace_format;
using jobs::parse_waveform;
using jobs::PhaseProfile;
using jobs::Precision;
using jobs::PresetConfig;
using jobs::read_jobs_csv;
using jobs::SoftwareStack;
using jobs::StepSchedule;
using jobs::trace_common_params;
using jobs::trace_format_entry;
using jobs::trace_formats;
using jobs::TraceConfig;
using jobs::TraceFormat;
using models::Band;
using models::JobClassConfig;
using sim::GridSignal;
using sim::parse_failure_config;
using sim::parse_smoothing_config;
using sim::read_grid_signal_csv;

namespace {

using core::location_of;
using core::TomlTable;

// Scalars and numeric arrays of `t` whose keys are not in `taken`, as a ParamSet for a component's
// registry (which checks them). Here rather than in core: the loader is its one user.
ParamSet params_except(const TomlTable& t, const std::vector<std::string>& taken) {
  ParamSet p(t.path(), t.where());
  for (const auto& [k, v] : t.raw()) {
    std::string key(k.str());
    bool skip = false;
    for (const auto& name : taken) skip = skip || name == key;
    if (skip) continue;
    ParamValue pv;
    pv.where = location_of(k.source(), t.file());
    if (auto b = v.as_boolean()) {
      pv.value = b->get();
    } else if (auto i = v.as_integer()) {
      pv.value = i->get();
    } else if (auto f = v.as_floating_point()) {
      pv.value = f->get();
    } else if (auto str = v.as_string()) {
      pv.value = str->get();
    } else if (v.is_array()) {
      pv.value = *t.numbers(key);
    } else {
      throw ConfigError(pv.where, t.dotted(key), fmt::format("unexpected {} here", core::toml_kind_name(v)));
    }
    p.set(key, std::move(pv));
  }
  return p;
}

constexpr std::int64_t kMaxI64 = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();
constexpr double kJoulesPerKWh = 3.6e6;

Precision parse_precision(const TomlTable& t, const std::string& key) {
  auto s = t.string(key);
  if (!s) return Precision::fp32;
  if (*s == "fp32") return Precision::fp32;
  if (*s == "tf32") return Precision::tf32;
  if (*s == "fp16") return Precision::fp16;
  if (*s == "bf16") return Precision::bf16;
  if (*s == "fp8") return Precision::fp8;
  t.fail(key, fmt::format("unknown precision '{}' (known: fp32, tf32, fp16, bf16, fp8)", *s));
}

// A job's software stack (eager when absent, like the command line's --stack); the names are
// parse_software_stack's, so the scenario, the CSVs and `fleetwatt predict` accept the same ones.
SoftwareStack parse_stack(const TomlTable& t, const std::string& key) {
  auto s = t.string(key);
  if (!s) return SoftwareStack::eager;
  SoftwareStack out = SoftwareStack::eager;
  if (!parse_software_stack(*s, out))
    t.fail(key, fmt::format("unknown stack '{}' (known: eager, amp, compiled, optimized)", *s));
  return out;
}

// Plausible bounds of fleet powers: no GPU draws 10 kW (the largest today are near 1.4 kW) and no server's
// base 100 kW; beyond them a typo (or 1e308) would only overflow the facility sums.
constexpr double kMaxGpuW = 10e3;
constexpr double kMaxNodeBaseW = 100e3;
// PUE: 1 is the physical floor; above 5 no data centre runs (warned from 3, see load_scenario).
constexpr double kMaxPue = 5.0;
constexpr double kWarnPue = 3.0;

// Idle above TDP would make running a job lower the node's power: refused where both are written.
void check_idle_below_tdp(const TomlTable& t, std::optional<double> idle, std::optional<double> tdp) {
  if (idle && tdp && *idle > *tdp)
    t.fail("gpu_idle_w", fmt::format("idle power {} W is above gpu_tdp_w = {} W", *idle, *tdp));
}

/// A table's `site` key: the site file, relative to the scenario, read in full before the run starts so
/// that a bad run is an error at its line there.
std::filesystem::path site_file(const TomlTable& t) {
  std::filesystem::path path = *t.string("site");
  if (path.is_relative()) path = std::filesystem::path(t.file()).parent_path() / path;
  if (auto why = core::missing_file(path)) t.fail("site", *why);
  (void)models::read_site_file(path);
  return path;
}

FleetGroupConfig parse_fleet_group(const TomlTable& t, std::size_t k) {
  t.require_known(
      {"name", "nodes", "gpus_per_node", "gpu", "gpu_idle_w", "gpu_tdp_w", "node_base_w", "site"});
  for (const char* key : {"nodes", "gpus_per_node", "gpu"})
    if (!t.has(key))
      throw ConfigError(t.where(), t.dotted(key),
                        "missing (a [[fleet.group]] needs nodes, gpus_per_node and gpu)");
  FleetGroupConfig g;
  g.where = t.where();
  g.name = t.string("name").value_or(fmt::format("group{}", k));
  g.nodes = static_cast<std::uint32_t>(*t.integer("nodes", 1, 10'000'000));
  g.gpus_per_node = static_cast<std::uint32_t>(*t.integer("gpus_per_node", 1, 1024));
  g.gpu = *t.string("gpu");
  g.gpu_origin = t.where("gpu");
  g.gpu_idle_W = t.number_in("gpu_idle_w", 0.0, kMaxGpuW);
  g.gpu_tdp_W = t.number_in("gpu_tdp_w", 0.0, kMaxGpuW);
  if (g.gpu_tdp_W && !(*g.gpu_tdp_W > 0.0)) t.fail("gpu_tdp_w", "must be positive, got 0");
  check_idle_below_tdp(t, g.gpu_idle_W, g.gpu_tdp_W);
  g.node_base_W = t.number_in("node_base_w", 0.0, kMaxNodeBaseW);
  if (t.has("site")) g.site = site_file(t);
  return g;
}

FleetConfig parse_fleet(const TomlTable& t) {
  t.require_known({"nodes", "gpus_per_node", "gpu", "gpu_file", "gpu_idle_w", "gpu_tdp_w", "node_base_w",
                   "node_load_w_per_gpu_w", "site", "group"});
  FleetConfig f;
  f.nodes = static_cast<std::uint32_t>(t.integer("nodes", 1, 10'000'000).value_or(f.nodes));
  f.gpus_per_node = static_cast<std::uint32_t>(t.integer("gpus_per_node", 1, 1024).value_or(f.gpus_per_node));
  f.gpu = t.string("gpu").value_or(f.gpu);
  f.gpu_origin = t.where("gpu");
  if (auto file = t.string("gpu_file")) {
    f.gpu_file = *file;
    if (f.gpu_file.is_relative()) f.gpu_file = std::filesystem::path(t.file()).parent_path() / f.gpu_file;
    if (auto why = core::missing_file(f.gpu_file)) t.fail("gpu_file", *why);
  }
  if (t.has("site")) f.site = site_file(t);
  f.gpu_idle_W = t.number_in("gpu_idle_w", 0.0, kMaxGpuW);
  f.gpu_tdp_W = t.number_in("gpu_tdp_w", 0.0, kMaxGpuW);
  if (f.gpu_tdp_W && !(*f.gpu_tdp_W > 0.0)) t.fail("gpu_tdp_w", "must be positive, got 0");
  check_idle_below_tdp(t, f.gpu_idle_W, f.gpu_tdp_W);
  f.node_base_W = t.number_in("node_base_w", 0.0, kMaxNodeBaseW).value_or(0.0);
  f.node_load_fraction = t.number_in("node_load_w_per_gpu_w", 0.0, 10.0).value_or(0.0);
  if (!t.has("group")) return f;
  // Node groups: the fleet is theirs alone; only gpu_file, site and node_base_w (the last two defaults) stay
  // shared.
  for (const char* key : {"nodes", "gpus_per_node", "gpu", "gpu_idle_w", "gpu_tdp_w"})
    if (t.has(key))
      t.fail(key,
             "cannot be given with [[fleet.group]] tables (set it in each group; gpu_file stays shared, "
             "node_base_w and site are defaults)");
  const auto tables = t.tables("group");
  if (tables.empty()) t.fail("group", "must be an array of tables ([[fleet.group]])");
  std::set<std::string> names;
  std::map<std::string, std::filesystem::path> site_of_gpu;  // the site file each GPU type's jobs take
  for (std::size_t k = 0; k < tables.size(); ++k) {
    auto g = parse_fleet_group(tables[k], k);
    if (!names.insert(g.name).second)
      throw ConfigError(tables[k].where("name"), "fleet.group.name",
                        fmt::format("duplicate group name '{}'", g.name));
    // A job is corrected by its GPU type's runs: two sites for one GPU type would leave it ambiguous.
    const std::filesystem::path site = g.site.empty() ? f.site : g.site;
    const auto [it, fresh] = site_of_gpu.emplace(g.gpu, site);
    if (!fresh && it->second != site)
      throw ConfigError(tables[k].where(g.site.empty() ? "gpu" : "site"), "fleet.group.site",
                        fmt::format("groups of GPU type '{}' take one site file ({} and {}): a job is "
                                    "corrected by its GPU type's runs",
                                    g.gpu, it->second.empty() ? "none" : it->second.string(),
                                    site.empty() ? "none" : site.string()));
    f.groups.push_back(std::move(g));
  }
  f.nodes = 0;
  f.gpus_per_node = 0;
  std::uint64_t nodes = 0;
  for (const auto& g : f.groups) {
    nodes += g.nodes;
    f.gpus_per_node = std::max(f.gpus_per_node, g.gpus_per_node);
  }
  if (nodes > 10'000'000) t.fail("group", fmt::format("{} nodes in all; at most 10,000,000", nodes));
  f.nodes = static_cast<std::uint32_t>(nodes);
  f.gpu = f.groups.front().gpu;
  f.gpu_origin = f.groups.front().gpu_origin;
  return f;
}

FacilityConfig parse_facility(const TomlTable& t) {
  // The cooling kind's own keys are checked by its declaration (sim/power/facility_model.cpp), not here.
  const std::vector<std::string> own{"pue",
                                     "carbon_kg_per_kwh",
                                     "cooling",
                                     "weather_csv",
                                     "weather_start",
                                     "battery",
                                     "ride_through_s",
                                     "ups_autonomy_s",
                                     "transfer_delay_s",
                                     "return_delay_s",
                                     "return_ramp_kw_per_min"};
  FacilityConfig f;
  f.pue = t.number_in("pue", 1.0, kMaxPue).value_or(1.0);
  f.pue_origin = t.where("pue");
  // Lignite, the dirtiest grid source, emits about 1.2 kg/kWh; a bound keeps carbon sums finite (1e308 made
  // them inf).
  f.carbon_kg_per_J = t.number_in("carbon_kg_per_kwh", 0.0, 10.0).value_or(0.0) / kJoulesPerKWh;
  f.cooling = t.string("cooling").value_or(f.cooling);
  f.ride_through_s = t.number_at_least("ride_through_s", 0.0, false).value_or(f.ride_through_s);
  f.ups_autonomy_s = t.number_at_least("ups_autonomy_s", 0.0, false).value_or(f.ups_autonomy_s);
  f.transfer_delay_s = t.number_at_least("transfer_delay_s", 0.0, false).value_or(f.transfer_delay_s);
  f.return_delay_s = t.number_at_least("return_delay_s", 0.0, false).value_or(f.return_delay_s);
  f.return_ramp_kw_per_min =
      t.number_at_least("return_ramp_kw_per_min", 0.0, true).value_or(f.return_ramp_kw_per_min);
  f.cooling_params = params_except(t, own);
  f.cooling_origin = t.has("cooling") ? t.where("cooling") : t.where();
  if (auto csv = t.string("weather_csv")) {
    if (f.cooling != "weather") t.fail("weather_csv", "needs cooling = \"weather\"");
    f.weather_csv = std::filesystem::path(*csv);
    if (f.weather_csv.is_relative())
      f.weather_csv = std::filesystem::path(t.file()).parent_path() / f.weather_csv;
  } else if (f.cooling == "weather") {
    throw ConfigError(t.where(), t.dotted("weather_csv"),
                      "missing (cooling = \"weather\" needs a weather file)");
  }
  for (const auto& bt : t.tables("battery")) {
    bt.require_known({"energy_kwh", "power_kw", "round_trip_efficiency", "soc_min", "soc_max", "soc_initial",
                      "mode", "ramp_limit_kw_per_min", "charge_below_g_per_kwh",
                      "discharge_above_g_per_kwh"});
    BatteryScenarioConfig b;
    b.where = bt.where();
    for (const char* k : {"energy_kwh", "power_kw"})
      if (!bt.has(k)) throw ConfigError(bt.where(), bt.dotted(k), "missing");
    b.energy_kwh = *bt.number_at_least("energy_kwh", 0.0, true);
    b.power_kw = *bt.number_at_least("power_kw", 0.0, true);
    b.round_trip_efficiency =
        bt.number_at_least("round_trip_efficiency", 0.0, true).value_or(b.round_trip_efficiency);
    if (b.round_trip_efficiency > 1.0) bt.fail("round_trip_efficiency", "at most 1");
    b.soc_min = bt.number_at_least("soc_min", 0.0, false).value_or(b.soc_min);
    b.soc_max = bt.number_at_least("soc_max", 0.0, false).value_or(b.soc_max);
    b.soc_initial = bt.number_at_least("soc_initial", 0.0, false).value_or(b.soc_initial);
    if (!(b.soc_min <= b.soc_initial && b.soc_initial <= b.soc_max && b.soc_max <= 1.0))
      bt.fail(bt.has("soc_initial") ? "soc_initial" : "soc_max",
              "need 0 <= soc_min <= soc_initial <= soc_max <= 1");
    b.mode = bt.string("mode").value_or(b.mode);
    if (b.mode != "peak_shave" && b.mode != "ramp_limit" && b.mode != "carbon")
      bt.fail("mode", fmt::format("'{}' is not peak_shave, ramp_limit or carbon", b.mode));
    if (b.mode == "ramp_limit") {
      if (!bt.has("ramp_limit_kw_per_min"))
        throw ConfigError(bt.where(), bt.dotted("ramp_limit_kw_per_min"), "missing (mode = \"ramp_limit\")");
      b.ramp_limit_kw_per_min = *bt.number_at_least("ramp_limit_kw_per_min", 0.0, true);
    }
    if (b.mode == "carbon") {
      for (const char* k : {"charge_below_g_per_kwh", "discharge_above_g_per_kwh"})
        if (!bt.has(k)) throw ConfigError(bt.where(), bt.dotted(k), "missing (mode = \"carbon\")");
      b.charge_below_g_per_kwh = *bt.number_at_least("charge_below_g_per_kwh", 0.0, false);
      b.discharge_above_g_per_kwh = *bt.number_at_least("discharge_above_g_per_kwh", 0.0, false);
      if (!(b.discharge_above_g_per_kwh > b.charge_below_g_per_kwh))
        bt.fail("discharge_above_g_per_kwh", "must be above charge_below_g_per_kwh");
    }
    f.batteries.push_back(std::move(b));
  }
  if (auto start = t.string("weather_start")) {
    if (f.cooling != "weather") t.fail("weather_start", "needs cooling = \"weather\"");
    f.weather_start = *start;
  }
  return f;
}

PhaseProfile parse_phases(const TomlTable& t) {
  for (const char* k : {"peak_w", "peak_s", "valley_w", "valley_s"})
    if (!t.has(k))
      throw ConfigError(t.where(), t.dotted(k),
                        "missing (a phase profile needs peak_w, peak_s, valley_w and valley_s)");
  PhaseProfile p;
  p.peak_W = *t.number_at_least("peak_w", 0.0, false);
  p.peak_s = *t.number_at_least("peak_s", 0.0, false);
  p.valley_W = *t.number_at_least("valley_w", 0.0, false);
  p.valley_s = *t.number_at_least("valley_s", 0.0, false);
  if (!(p.epoch_s() > 0.0)) t.fail("peak_s", "an epoch needs a positive duration (peak_s + valley_s > 0)");
  return p;
}

PredictorConfig parse_predictor(const TomlTable& t) {
  PredictorConfig p;
  p.kind = t.string("kind").value_or(p.kind);
  p.kind_origin = t.has("kind") ? t.where("kind") : t.where();
  if (auto band = t.string("band")) {
    if (*band == "low") {
      p.band = Band::low;
    } else if (*band == "mid") {
      p.band = Band::mid;
    } else if (*band == "high") {
      p.band = Band::high;
    } else {
      t.fail("band", fmt::format("unknown band '{}' (known: low, mid, high)", *band));
    }
  }
  if (auto classes = t.table("classes")) {
    for (const auto& [k, v] : classes->raw()) {
      std::string name(k.str());
      auto ct = classes->table(name);
      ct->require_known({"peak_w", "peak_s", "valley_w", "valley_s", "dataset_samples"});
      JobClassConfig c;
      c.name = name;
      c.reference = parse_phases(*ct);
      c.reference_samples = ct->number_at_least("dataset_samples", 0.0, true).value_or(0.0);
      c.where = location_of(k.source(), t.file());
      p.classes.push_back(std::move(c));
    }
  }
  p.params = params_except(t, {"kind", "band", "classes"});
  return p;
}

SchedulerConfig parse_scheduler(const TomlTable& t) {
  SchedulerConfig s;
  s.policy = t.string("policy").value_or(s.policy);
  s.policy_origin = t.has("policy") ? t.where("policy") : t.where();
  s.placement = t.string("placement").value_or(s.placement);
  s.placement_origin = t.has("placement") ? t.where("placement") : t.where();
  // Sub-tables [scheduler.NAME] hold the parameters of policy NAME.
  std::vector<std::string> taken{"policy", "placement"};
  for (const auto& [k, v] : t.raw())
    if (v.is_table()) {
      const std::string name(k.str());
      taken.push_back(name);
      s.policy_params[name] = params_except(*t.table(name), {});
    }
  // The section's own keys belong to the chosen placement, or to the chosen policy when it has no table;
  // sim::check_scheduler_config sorts them out against the policies' declarations.
  s.params = params_except(t, taken);
  return s;
}

/// A model given by its shape: `layers` and the widths, under the keys of model_shape_keys() (none of them:
/// not given); refused at the key where the shape cannot be. A job's and a service's tables read it alike.
jobs::ModelShape parse_model_shape(const TomlTable& t) {
  const auto& keys = model_shape_keys();
  const auto first = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return t.has(k); });
  jobs::ModelShape s;
  if (first == keys.end()) return s;
  if (!t.has("layers")) t.fail(*first, "a model given by its shape needs layers (and hidden, heads)");
  const auto count = [&](const char* key, std::uint32_t fallback, std::int64_t lo) {
    return static_cast<std::uint32_t>(t.integer(key, lo, kMaxU32).value_or(fallback));
  };
  s.layers = count("layers", 0, 1), s.hidden = count("hidden", 0, 1), s.heads = count("heads", 0, 1);
  s.kv_heads = count("kv_heads", 0, 1), s.ffn_hidden = count("ffn_hidden", 0, 1),
  s.vocab = count("vocab", 0, 0);
  s.experts = count("experts", 1, 1), s.top_k = count("top_k", 1, 1);
  s.gated = t.boolean("gated_mlp").value_or(true);
  if (const auto [key, why] = s.problem(); !key.empty()) t.fail(key, why);
  return s;
}

void parse_metadata(const TomlTable& t, ModelMetadata& m) {
  m.model = t.string("model").value_or("");
  m.params = t.number_at_least("params", 0.0, true).value_or(0.0);
  m.flops_per_sample = t.number_at_least("flops_per_sample", 0.0, true).value_or(0.0);
  m.training_flops_per_sample = t.number_at_least("training_flops_per_sample", 0.0, true).value_or(0.0);
  m.batch_size = static_cast<std::uint32_t>(t.integer("batch_size", 1, kMaxU32).value_or(0));
  m.dataset_samples = t.number_at_least("dataset_samples", 0.0, true).value_or(0.0);
  m.input_size = static_cast<std::uint32_t>(t.integer("input_size", 1, kMaxU32).value_or(0));
  m.workers = static_cast<std::uint32_t>(t.integer("workers", 0, kMaxU32).value_or(0));
  m.precision = parse_precision(t, "precision");
  m.stack = parse_stack(t, "stack");
  if (auto a = t.string("attention"); a && !parse_attention(*a, m.attention))
    t.fail("attention", fmt::format("unknown attention '{}' (known: fused, flash2, eager)", *a));
  m.shape = parse_model_shape(t);
  if (m.shape.given() && m.model.empty()) m.model = "custom";
}

/// `keys` and a model shape's keys after them (model_shape_keys()): a table that takes a model by its shape.
std::vector<std::string> with_shape_keys(std::vector<std::string> keys) {
  const auto& shape = model_shape_keys();
  keys.insert(keys.end(), shape.begin(), shape.end());
  return keys;
}

/// A job's model keys: its name or FLOPs, its data and precision, and its shape.
const std::vector<std::string> kMetadataKeys =
    with_shape_keys({"model", "params", "flops_per_sample", "batch_size", "input_size", "workers",
                     "precision", "stack", "dataset_samples", "training_flops_per_sample", "attention"});

/// Keys of a job's 3D-parallel split (Megatron-LM tp / pp / dp, expert parallel, ZeRO, recomputation) and
/// the LLM spellings of its batch and sequence (global_batch, global_batch_tokens, seq).
const std::vector<std::string> kParallelKeys = {"tp",
                                                "pp",
                                                "cp",
                                                "vp",
                                                "first_stage_layers",
                                                "last_stage_layers",
                                                "dp",
                                                "ep",
                                                "zero",
                                                "fsdp",
                                                "fsdp_shard_size",
                                                "recompute",
                                                "micro_batch",
                                                "seq",
                                                "global_batch",
                                                "global_batch_tokens",
                                                "rank_order",
                                                "tp_comm_overlap"};

std::uint32_t count_key(const TomlTable& t, const std::string& key, std::uint32_t fallback) {
  return static_cast<std::uint32_t>(t.integer(key, 1, kMaxU32).value_or(fallback));
}

/// Reads the parallel split into j.meta.parallel and settles n_gpus = tp x pp x dp (n_gpus, or dp when
/// n_gpus is absent); every inconsistency is refused at the key that breaks it.
void parse_parallelism(const TomlTable& t, JobSpec& j) {
  auto& par = j.meta.parallel;
  par.tp = count_key(t, "tp", 1), par.pp = count_key(t, "pp", 1), par.ep = count_key(t, "ep", 1);
  par.cp = count_key(t, "cp", 1);
  if (auto o = t.string("rank_order"); o && !parse_rank_order(*o, par.order))
    t.fail("rank_order", fmt::format("unknown rank_order '{}' (known: tp-cp-dp-pp, tp-cp-pp-dp)", *o));
  par.vp = count_key(t, "vp", 1);
  par.first_stage_layers = count_key(t, "first_stage_layers", 0);
  par.last_stage_layers = count_key(t, "last_stage_layers", 0);
  if (const auto [key, why] = par.pipeline_key_problem(); !key.empty()) t.fail(key, why);
  par.micro_batch = count_key(t, "micro_batch", 0);
  par.zero = static_cast<std::uint32_t>(t.integer("zero", 0, 3).value_or(0));
  if (auto fsdp = t.boolean("fsdp"); fsdp && *fsdp) {
    if (t.has("zero") && par.zero != 3) t.fail("fsdp", "fsdp = true is ZeRO stage 3; it contradicts zero");
    par.zero = 3;
  }
  if (auto r = t.string("recompute"); r && !jobs::parse_recompute(*r, par.recompute))
    t.fail("recompute", fmt::format("unknown recompute '{}' (known: none, selective, full)", *r));
  par.fsdp_shard_size = count_key(t, "fsdp_shard_size", 0);
  par.tp_comm_overlap = t.boolean("tp_comm_overlap");
  const std::uint64_t mp = par.replica_gpus();
  if (mp > static_cast<std::uint64_t>(kMaxU32))
    t.fail("tp", fmt::format("tp x cp x pp = {} is beyond any fleet", mp));
  if (t.has("dp")) {
    const std::uint64_t dp = count_key(t, "dp", 1);
    if (mp * dp > static_cast<std::uint64_t>(kMaxU32))
      t.fail("dp", fmt::format("tp x cp x pp x dp = {} is beyond any fleet", mp * dp));
    if (!t.has("n_gpus")) {
      j.n_gpus = static_cast<std::uint32_t>(mp * dp);
    } else if (j.n_gpus != mp * dp) {
      t.fail("dp", fmt::format("tp x cp x pp x dp = {} x {} x {} x {} = {} but n_gpus = {}", par.tp, par.cp,
                               par.pp, dp, mp * dp, j.n_gpus));
    }
  } else if (!t.has("n_gpus")) {
    throw ConfigError(t.where(), t.dotted("n_gpus"), "missing (every job needs n_gpus, or tp x pp x dp)");
  }
  if (j.n_gpus % mp != 0)
    t.fail(t.has("cp")   ? "cp"
           : t.has("pp") ? "pp"
                         : "tp",
           fmt::format("n_gpus {} is not a multiple of tp x cp x pp = {} x {} x {}", j.n_gpus, par.tp, par.cp,
                       par.pp));
  const auto dp = static_cast<std::uint32_t>(j.n_gpus / mp);
  if (dp % par.ep != 0)
    t.fail("ep", fmt::format("ep {} does not divide the data-parallel degree {}", par.ep, dp));
  auto& m = j.meta;
  if (t.has("seq")) {
    if (t.has("input_size")) t.fail("seq", "give seq or input_size, not both (seq is the input size)");
    m.input_size = count_key(t, "seq", 0);
  }
  const int batches = t.has("batch_size") + t.has("global_batch") + t.has("global_batch_tokens");
  if (batches > 1) t.fail("global_batch", "give one of batch_size, global_batch and global_batch_tokens");
  if (t.has("global_batch")) m.batch_size = count_key(t, "global_batch", 0);
  if (t.has("global_batch_tokens")) {
    const auto tokens = *t.integer("global_batch_tokens", 1, kMaxI64 / 2);
    if (m.input_size == 0) t.fail("global_batch_tokens", "needs the sequence length (seq)");
    if (tokens % m.input_size != 0 || tokens / m.input_size > kMaxU32)
      t.fail("global_batch_tokens",
             fmt::format("{} tokens is not a whole number of {}-token sequences", tokens, m.input_size));
    m.batch_size = static_cast<std::uint32_t>(tokens / m.input_size);
  }
  if (const auto [key, why] = par.split_problem(m.input_size, dp); !key.empty()) t.fail(key, why);
  if (par.micro_batch > 0 && m.batch_size > 0 &&
      m.batch_size % (static_cast<std::uint64_t>(dp) * par.micro_batch) != 0)
    t.fail("micro_batch",
           fmt::format("the global batch {} is not a whole number of micro-batches of {} on {} "
                       "data-parallel replicas",
                       m.batch_size, par.micro_batch, dp));
}

/// Keys of a step-level job's schedule: its waveform, checkpoint interval in steps and start-up time.
const std::vector<std::string> kStepKeys = {"waveform", "checkpoint_every_steps", "startup_s", "checkpoint"};

void parse_step_schedule(const TomlTable& t, StepSchedule& s) {
  if (auto w = t.string("waveform"); w && !parse_waveform(*w, s.waveform))
    t.fail("waveform", fmt::format("unknown waveform '{}' (known: auto, steps, epochs)", *w));
  s.checkpoint_every_steps = count_key(t, "checkpoint_every_steps", 0);
  s.startup_s = t.number_at_least("startup_s", 0.0, false);
  if (auto c = t.string("checkpoint"); c && !parse_checkpoint_mode(*c, s.checkpoint))
    t.fail("checkpoint", fmt::format("unknown checkpoint '{}' (known: sync, async)", *c));
}

JobSpec parse_job(const TomlTable& t, std::int64_t default_id) {
  std::vector<std::string> known = {
      "id",       "submit_s", "n_gpus",   "epochs",   "class",
      "peak_w",   "peak_s",   "valley_w", "valley_s", "failure_rate_per_gpu_hour",
      "smoothing"};
  known.insert(known.end(), kMetadataKeys.begin(), kMetadataKeys.end());
  known.insert(known.end(), kParallelKeys.begin(), kParallelKeys.end());
  known.insert(known.end(), kStepKeys.begin(), kStepKeys.end());
  t.require_known(known);
  JobSpec j;
  j.id = t.integer("id", 0, kMaxI64 / 2).value_or(default_id);
  j.submit_s = t.number_at_least("submit_s", 0.0, false).value_or(0.0);
  if (t.has("n_gpus")) j.n_gpus = static_cast<std::uint32_t>(*t.integer("n_gpus", 1, kMaxU32));
  j.epochs = static_cast<std::uint32_t>(t.integer("epochs", 1, kMaxU32).value_or(1));
  parse_metadata(t, j.meta);
  parse_parallelism(t, j);
  j.failure_rate_per_gpu_hour = t.number_at_least("failure_rate_per_gpu_hour", 0.0, false);
  if (auto m = t.string("smoothing")) {
    j.smoothing = parse_smoothing_mode(*m);
    if (!j.smoothing) t.fail("smoothing", fmt::format("unknown mode '{}' (known: off, smooth, burn)", *m));
  }
  parse_step_schedule(t, j.schedule);
  const bool has_phase = t.has("peak_w") || t.has("peak_s") || t.has("valley_w") || t.has("valley_s");
  if (auto c = t.string("class")) {
    if (has_phase) t.fail("class", "give either a job class or the four phase values, not both");
    j.job_class = *c;
    j.class_origin = t.where("class");
  } else {
    j.class_origin = t.where();
  }
  if (has_phase) j.phases = parse_phases(t);
  return j;
}

std::vector<std::uint32_t> positive_counts(const TomlTable& t, const std::string& key,
                                           std::vector<double> v) {
  std::vector<std::uint32_t> out;
  for (double x : v) {
    // The range first: converting a double beyond 32 bits is undefined (UBSan, found by fuzzing).
    if (!(x >= 1) || x > 4294967295.0 || x != std::floor(x))
      t.fail(key, fmt::format("must hold positive integers, found {}", x));
    out.push_back(static_cast<std::uint32_t>(x));
  }
  if (out.empty()) t.fail(key, "must not be empty");
  return out;
}

/// [lo, hi] from a number or a two-element array.
std::pair<double, double> range_of(const TomlTable& t, const std::string& key, std::vector<double> v) {
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2) t.fail(key, "expected a number or a [min, max] pair");
  if (v[0] > v[1]) t.fail(key, fmt::format("min {} is above max {}", v[0], v[1]));
  return {v[0], v[1]};
}

// A generator's or preset's span: arrivals after the horizon would be drawn, predicted and written for
// nothing (the 1.67 M jobs for a 20,000 s run), and a rate whose expected arrivals exceed any fleet's
// would exhaust memory before the run starts.
void check_arrival_span(const TomlTable& t, double rate_per_s, double start_s, double end_s,
                        double horizon_s) {
  if (end_s > horizon_s)
    t.fail("end_s",
           fmt::format("{} s is after the horizon (workload.horizon_s = {} s): arrivals then are never "
                       "simulated; give at most the horizon",
                       end_s, horizon_s));
  const double expected = rate_per_s * (end_s - start_s);
  if (expected > kMaxExpectedArrivals)
    t.fail("rate_per_hour",
           fmt::format("{:.3g} arrivals expected over [{}, {}) s, more than the {:.0e} a run may "
                       "draw; lower the rate",
                       expected, start_s, end_s, kMaxExpectedArrivals));
}

GeneratorConfig parse_generator(const TomlTable& t, double horizon_s) {
  t.require_known({"rate_per_hour", "diurnal_amplitude", "peak_hour", "start_s", "end_s", "mix"});
  GeneratorConfig g;
  if (!t.has("rate_per_hour"))
    throw ConfigError(t.where(), t.dotted("rate_per_hour"), "missing (mean arrivals per hour)");
  g.mean_rate_per_s = *t.number_at_least("rate_per_hour", 0.0, true) / 3600.0;
  g.rate_where = t.where("rate_per_hour");
  g.diurnal_amplitude = t.number_at_least("diurnal_amplitude", 0.0, false).value_or(0.0);
  if (g.diurnal_amplitude > 1.0) t.fail("diurnal_amplitude", "must be in [0, 1] (a rate cannot go negative)");
  double peak_hour = t.number_at_least("peak_hour", 0.0, false).value_or(14.0);
  if (peak_hour >= 24.0) t.fail("peak_hour", "must be in [0, 24)");
  g.peak_time_of_day_s = peak_hour * 3600.0;
  g.start_s = t.number_at_least("start_s", 0.0, false).value_or(0.0);
  g.end_s = t.number_at_least("end_s", 0.0, true).value_or(horizon_s);
  if (g.end_s <= g.start_s) t.fail("end_s", "must be after start_s");
  check_arrival_span(t, g.mean_rate_per_s, g.start_s, g.end_s, horizon_s);
  auto mix = t.tables("mix");
  if (mix.empty())
    throw ConfigError(t.where(), t.dotted("mix"), "missing (at least one [[workload.generator.mix]] entry)");
  for (const auto& m : mix) {
    m.require_known({"weight", "class", "n_gpus", "n_gpus_weights", "epochs", "dataset_samples"});
    MixEntry e;
    e.weight = m.number_at_least("weight", 0.0, true).value_or(1.0);
    if (!m.has("class"))
      throw ConfigError(m.where(), m.dotted("class"), "missing (the job class of this mix entry)");
    e.job_class = *m.string("class");
    e.class_origin = m.where("class");
    if (auto v = m.numbers("n_gpus")) e.n_gpus = positive_counts(m, "n_gpus", *v);
    if (auto w = m.numbers("n_gpus_weights")) {
      if (w->size() != e.n_gpus.size()) m.fail("n_gpus_weights", "needs one weight per n_gpus entry");
      for (double x : *w)
        if (!(x >= 0)) m.fail("n_gpus_weights", "weights must be zero or more");
      e.n_gpus_weights = *w;
    }
    if (auto v = m.numbers("epochs")) {
      auto [lo, hi] = range_of(m, "epochs", *v);
      auto c = positive_counts(m, "epochs", {lo, hi});
      e.epochs_min = c[0];
      e.epochs_max = c[1];
    }
    if (auto v = m.numbers("dataset_samples")) {
      auto [lo, hi] = range_of(m, "dataset_samples", *v);
      if (!(lo > 0)) m.fail("dataset_samples", "must be positive");
      e.samples_min = lo;
      e.samples_max = hi;
    }
    g.mix.push_back(std::move(e));
  }
  return g;
}

std::filesystem::path resolve(const std::filesystem::path& scenario_file, const std::string& p) {
  std::filesystem::path path = p;
  return path.is_relative() ? scenario_file.parent_path() / path : path;
}

// [workload.trace] keys: the common ones and the chosen format's own (given, or guessed from the file; when
// neither says, any format's). Values and defaults from the declarations of trace_reader.cpp.
TraceConfig parse_trace(const TomlTable& t, const std::filesystem::path& scenario_file) {
  const ParamSet raw = params_except(t, {});
  TraceConfig c;
  c.where = t.where();
  if (!raw.has("file")) throw ConfigError(t.where(), t.dotted("file"), "missing (the trace file)");
  c.file = resolve(scenario_file, raw.get_string("file", ""));
  if (auto why = core::missing_file(c.file)) t.fail("file", *why);
  std::optional<TraceFormat> format;
  if (raw.has("format")) {
    c.format = raw.get_string("format", "");
    format = parse_trace_format(c.format, raw.where_of("format"));
  } else {
    format = guess_trace_format(c.file);
  }
  ParamSpecs specs = trace_common_params();
  for (const auto& e : trace_formats())
    if (!format || &e == &trace_format_entry(*format))
      specs.insert(specs.end(), e.params.begin(), e.params.end());
  const ParamSet p = raw.checked(specs);
  if (p.has("from_s")) c.from_s = p.get_non_negative("from_s");
  if (p.has("to_s")) c.to_s = p.get_positive("to_s");
  if (c.from_s && c.to_s && *c.to_s <= *c.from_s) t.fail("to_s", "must be after from_s");
  c.arrival_scale = p.get_positive("arrival_scale");
  c.fleet_scale = p.get_positive("fleet_scale");
  c.strict = p.get_bool("strict");
  const std::int64_t max_jobs = p.get_int("max_jobs");
  if (max_jobs < 0) t.fail("max_jobs", fmt::format("must be at least 0, got {}", max_jobs));
  c.max_jobs = static_cast<std::size_t>(max_jobs);
  if (p.has("swf_procs_per_gpu")) c.swf_procs_per_gpu = p.get_positive("swf_procs_per_gpu");
  if (p.has("pai_task_table")) c.pai_task_table = resolve(scenario_file, p.get_string("pai_task_table"));
  c.deferrable_fraction = p.get_non_negative("deferrable_fraction");
  if (c.deferrable_fraction > 1.0) t.fail("deferrable_fraction", "must be in [0, 1]");
  c.defer_window_s = p.get_non_negative("defer_window_s");
  return c;
}

PresetConfig parse_preset(const TomlTable& t, double horizon_s) {
  t.require_known({"cluster", "rate_per_hour", "start_s", "end_s", "deferrable_fraction", "defer_window_s"});
  PresetConfig c;
  c.where = t.where();
  if (!t.has("cluster"))
    throw ConfigError(t.where(), t.dotted("cluster"), "missing (philly, helios, pai, seren, kalos)");
  c.cluster = *t.string("cluster");
  try {
    (void)cluster_preset(c.cluster);
  } catch (const ConfigError& e) {
    throw ConfigError(t.where("cluster"), t.dotted("cluster"), e.message());
  }
  if (!t.has("rate_per_hour"))
    throw ConfigError(t.where(), t.dotted("rate_per_hour"), "missing (mean arrivals per hour)");
  c.mean_rate_per_s = *t.number_at_least("rate_per_hour", 0.0, true) / 3600.0;
  c.start_s = t.number_at_least("start_s", 0.0, false).value_or(0.0);
  c.end_s = t.number_at_least("end_s", 0.0, true).value_or(horizon_s);
  if (c.end_s <= c.start_s) t.fail("end_s", "must be after start_s");
  check_arrival_span(t, c.mean_rate_per_s, c.start_s, c.end_s, horizon_s);
  c.deferrable_fraction = t.number_at_least("deferrable_fraction", 0.0, false).value_or(0.0);
  if (c.deferrable_fraction > 1.0) t.fail("deferrable_fraction", "must be in [0, 1]");
  c.defer_window_s = t.number_at_least("defer_window_s", 0.0, false).value_or(c.defer_window_s);
  return c;
}

GridSignalConfig parse_grid_signal(const TomlTable& t, const std::filesystem::path& scenario_file,
                                   const char* default_unit) {
  t.require_known({"file", "time_column", "value_column", "scale", "start", "repeat", "unit"});
  GridSignalConfig c;
  c.where = t.where();
  if (!t.has("file")) throw ConfigError(t.where(), t.dotted("file"), "missing (a CSV of time, value)");
  c.file = resolve(scenario_file, *t.string("file"));
  if (auto why = core::missing_file(c.file)) t.fail("file", *why);
  c.options.time_column = t.string("time_column").value_or("");
  c.options.value_column = t.string("value_column").value_or("");
  c.options.scale = t.number_at_least("scale", 0.0, true).value_or(1.0);
  c.options.start = t.timestamp_text("start").value_or("");
  c.options.repeat = t.boolean("repeat").value_or(false);
  c.options.unit = t.string("unit").value_or(default_unit);
  return c;
}

GridConfig parse_grid(const TomlTable& t, const std::filesystem::path& scenario_file) {
  t.require_known({"carbon", "price", "system_peak_hours", "import_limit_kw", "event"});
  GridConfig g;
  for (const auto& et : t.tables("event")) {
    et.require_known({"at_s", "duration_s", "kind"});
    GridEventConfig e;
    e.where = et.where();
    for (const char* k : {"at_s", "duration_s"})
      if (!et.has(k)) throw ConfigError(et.where(), et.dotted(k), "missing");
    e.at_s = *et.number_at_least("at_s", 0.0, false);
    // One clock tick at least: a shorter event would be 0 ns on the clock (the region file has the same
    // floor).
    e.duration_s = *et.number_at_least("duration_s", 1e-9, false);
    e.kind = et.string("kind").value_or(e.kind);
    if (e.kind != "dip" && e.kind != "fault")
      et.fail("kind", fmt::format("'{}' is not dip or fault", e.kind));
    if (!g.events.empty() && e.at_s < g.events.back().at_s + g.events.back().duration_s)
      et.fail("at_s", "starts before the event above ends: list events in time order, apart");
    g.events.push_back(e);
  }
  g.import_limit_kw = t.number_at_least("import_limit_kw", 0.0, true).value_or(0.0);
  if (auto hours = t.numbers("system_peak_hours")) {
    for (double h : *hours) {
      if (h != std::floor(h) || h < 0 || h > 23)
        t.fail("system_peak_hours", fmt::format("{} is not an hour of the day (integers 0 to 23)", h));
      if (std::find(g.system_peak_hours.begin(), g.system_peak_hours.end(), static_cast<int>(h)) !=
          g.system_peak_hours.end())
        t.fail("system_peak_hours", fmt::format("hour {} is listed twice", h));
      g.system_peak_hours.push_back(static_cast<int>(h));
    }
  }
  if (auto c = t.table("carbon")) g.carbon = parse_grid_signal(*c, scenario_file, "g/kWh");
  if (auto c = t.table("price")) g.price = parse_grid_signal(*c, scenario_file, "currency/MWh");
  return g;
}

WorkloadConfig parse_workload(const TomlTable& t, const std::filesystem::path& scenario_file) {
  t.require_known({"horizon_s", "warmup_s", "warmup_arrivals", "jobs", "jobs_csv", "generator", "trace",
                   "preset", "service"});
  WorkloadConfig w;
  w.horizon_s = t.number_at_least("horizon_s", 0.0, true).value_or(w.horizon_s);
  w.warmup_s = t.number_at_least("warmup_s", 0.0, false);
  w.warmup_where = t.has("warmup_s") ? t.where("warmup_s") : t.where();
  if (auto mode = t.string("warmup_arrivals")) {
    if (*mode != "continued" && *mode != "periodic")
      t.fail("warmup_arrivals", fmt::format("'{}' is not a warm-up: \"continued\" or \"periodic\"", *mode));
    w.periodic_warmup = *mode == "periodic";
    w.periodic_where = t.where("warmup_arrivals");
  }
  std::int64_t next_id = 1;
  for (const auto& jt : t.tables("jobs")) w.jobs.push_back(parse_job(jt, next_id++));
  if (auto csv = t.string("jobs_csv")) {
    std::filesystem::path p = *csv;
    if (p.is_relative()) p = scenario_file.parent_path() / p;
    if (auto why = core::missing_file(p)) t.fail("jobs_csv", *why);
    auto jobs = read_jobs_csv(p);
    w.jobs.insert(w.jobs.end(), jobs.begin(), jobs.end());
  }
  std::set<std::int64_t> ids;
  for (const auto& j : w.jobs)
    if (!ids.insert(j.id).second)
      throw ConfigError(j.class_origin, "id", fmt::format("duplicate job id {}", j.id));
  if (auto g = t.table("generator")) w.generator = parse_generator(*g, w.horizon_s);
  if (auto tr = t.table("trace")) w.trace = parse_trace(*tr, scenario_file);
  if (auto p = t.table("preset")) w.preset = parse_preset(*p, w.horizon_s);
  return w;
}

// [[workload.service]]: serve's options as keys (runs/service_request.hpp), the GPU from the group.
ServiceScenarioConfig parse_service(const TomlTable& t, std::size_t k, std::uint64_t seed,
                                    const std::filesystem::path& scenario_file) {
  static const std::vector<std::string> kKeys = with_shape_keys({"name",
                                                                 "group",
                                                                 "model",
                                                                 "tp",
                                                                 "pp",
                                                                 "replicas",
                                                                 "max_batch",
                                                                 "max_batched_tokens",
                                                                 "memory_fraction",
                                                                 "cuda_graphs",
                                                                 "scheduler",
                                                                 "prefill_replicas",
                                                                 "kv_link_gbytes_per_s",
                                                                 "mode",
                                                                 "trace",
                                                                 "rate_scale",
                                                                 "arrival_rate_per_s",
                                                                 "hourly",
                                                                 "start_hour",
                                                                 "burstiness",
                                                                 "seed",
                                                                 "min_replicas",
                                                                 "target_utilisation",
                                                                 "wake_s",
                                                                 "parked",
                                                                 "absorb",
                                                                 "absorb_gain",
                                                                 "absorb_latency_s",
                                                                 "absorb_control_s",
                                                                 "absorb_window_s",
                                                                 "absorb_reaction_s",
                                                                 "slo_ttft_s",
                                                                 "slo_tpot_s"});
  t.require_known(kKeys);
  ServiceScenarioConfig c;
  c.at = t.where();
  c.prefix = t.path();
  for (const auto& key : kKeys) c.where[key] = t.has(key) ? t.where(key) : t.where();
  c.name = t.string("name").value_or(fmt::format("service{}", k));
  c.group = t.string("group").value_or("");
  ServeRequest& r = c.request;
  r.origin = scenario_file.string();
  r.keyword_names = true;
  // The LLM: a zoo decoder by name, or a decoder by its shape that `model` names (service_config refuses
  // a zoo name beside a shape, at the model key).
  r.model_shape = parse_model_shape(t);
  const auto model = t.string("model");
  if (!model && !r.model_shape.given())
    t.fail("model",
           "missing (the LLM the service runs: a zoo decoder, see `fleetwatt list`, or its shape: layers, "
           "hidden, heads, ...)");
  r.model = model.value_or("");
  const auto trace = t.string("trace");
  if (!trace)
    t.fail("trace", "missing (a request trace: the requests played, or the lengths a generator draws)");
  r.trace = resolve(scenario_file, *trace).string();
  if (auto why = core::missing_file(r.trace)) t.fail("trace", *why);
  const auto count = [&](const char* key, std::uint32_t fallback) {
    return static_cast<std::uint32_t>(t.integer(key, 1, 1'000'000'000).value_or(fallback));
  };
  r.tp = count("tp", r.tp);
  r.pp = count("pp", r.pp);
  c.replicas_given = t.has("replicas");
  r.replicas = count("replicas", r.replicas);
  r.max_batch = count("max_batch", r.max_batch);
  r.max_batched_tokens = count("max_batched_tokens", r.max_batched_tokens);
  r.memory_fraction = t.number_in("memory_fraction", 0.0, 1.0).value_or(r.memory_fraction);
  if (!(r.memory_fraction > 0.0)) t.fail("memory_fraction", "must be in (0, 1]");
  r.cuda_graphs = t.boolean("cuda_graphs").value_or(r.cuda_graphs);
  r.scheduler = t.string("scheduler").value_or(r.scheduler);
  if (sim::service_schedulers().find(r.scheduler) == nullptr)
    t.fail("scheduler", sim::service_schedulers().unknown(r.scheduler));
  for (const char* key : {"prefill_replicas", "kv_link_gbytes_per_s"})
    if (t.has(key) && r.scheduler != "disaggregated")
      t.fail(key, "sets the disaggregated scheduler's pools: give scheduler = \"disaggregated\" too");
  r.prefill_replicas =
      static_cast<std::uint32_t>(t.integer("prefill_replicas", 1, 1'000'000'000).value_or(0));
  r.kv_link_gbytes_per_s = t.number_at_least("kv_link_gbytes_per_s", 0.0, true).value_or(0.0);
  r.mode = t.string("mode").value_or("fleet");
  if (r.mode != "exact" && r.mode != "fleet")
    t.fail("mode",
           fmt::format("'{}' is neither \"fleet\" (campus scale) nor \"exact\" (every request)", r.mode));
  r.rate_scale = t.number_at_least("rate_scale", 0.0, true).value_or(r.rate_scale);
  r.generate_rate = t.number_at_least("arrival_rate_per_s", 0.0, true).value_or(0.0);
  if (t.has("hourly") && t.raw().get("hourly")->is_string()) {
    r.hourly = *t.string("hourly");
    if (r.hourly != "trace")
      t.fail("hourly",
             fmt::format("'{}' is neither 24 numbers nor \"trace\" (the trace's own curve)", r.hourly));
  } else if (const auto hourly = t.numbers("hourly")) {
    if (hourly->size() != 24)
      t.fail("hourly", fmt::format("needs 24 values (one an hour from midnight), not {}", hourly->size()));
    for (std::size_t h = 0; h < 24; ++h) {
      if (!((*hourly)[h] >= 0.0)) t.fail("hourly", "must not be negative");
      r.hourly += (h ? "," : "") + fmt::format("{:.17g}", (*hourly)[h]);
    }
  }
  r.start_hour = t.number_in("start_hour", 0.0, 24.0).value_or(r.start_hour);
  if (!(r.start_hour < 24.0)) t.fail("start_hour", "must be in [0, 24)");
  r.burstiness = t.number_at_least("burstiness", 0.0, true).value_or(r.burstiness);
  r.seed =
      static_cast<std::uint64_t>(t.integer("seed", 0, kMaxI64).value_or(static_cast<std::int64_t>(seed)));
  r.slo_ttft_s = t.number_at_least("slo_ttft_s", 0.0, true).value_or(0.0);
  r.slo_tpot_s = t.number_at_least("slo_tpot_s", 0.0, true).value_or(0.0);
  // Autoscaling: on with a target utilisation; the other keys shape it.
  sim::Autoscale& a = r.autoscale;
  a.enabled = t.has("target_utilisation");
  a.target_utilisation = t.number_in("target_utilisation", 0.0, 1.0).value_or(a.target_utilisation);
  if (a.enabled && !(a.target_utilisation > 0.0)) t.fail("target_utilisation", "must be in (0, 1]");
  // Parking one of a replica's engines would not idle a GPU: every stage serves all of them.
  if (a.enabled && r.pp > 1)
    t.fail("target_utilisation", "autoscaling parks whole replicas, not pipeline stages (pp 1)");
  a.min_replicas =
      static_cast<std::uint32_t>(t.integer("min_replicas", 0, 1'000'000'000).value_or(a.min_replicas));
  a.wake_s = t.number_at_least("wake_s", 0.0, false).value_or(a.wake_s);
  if (const auto parked = t.string("parked")) {
    if (*parked != "idle" && *parked != "off")
      t.fail("parked",
             fmt::format("'{}' is neither \"idle\" (GPUs at their idle power) nor \"off\"", *parked));
    a.parked_off = *parked == "off";
  }
  for (const char* key : {"min_replicas", "wake_s", "parked"})
    if (t.has(key) && !a.enabled) t.fail(key, "shapes autoscaling: give target_utilisation too");
  // Absorbing the other GPUs' swings: on with absorb = true; the other keys shape it.
  sim::AbsorbConfig& ab = c.absorb;
  ab.enabled = t.boolean("absorb").value_or(false);
  ab.gain = t.number_in("absorb_gain", 0.0, 1.0).value_or(ab.gain);
  ab.latency_s = t.number_at_least("absorb_latency_s", 0.0, true).value_or(ab.latency_s);
  ab.control_s = t.number_at_least("absorb_control_s", kMinSeriesIntervalS, false).value_or(ab.control_s);
  ab.window_s = t.number_at_least("absorb_window_s", 0.0, true).value_or(ab.window_s);
  // absorb_reaction_s: the delay after a change of the other GPUs' draw (0: at once).
  ab.reaction_s = t.number_at_least("absorb_reaction_s", 0.0, false).value_or(ab.reaction_s);
  if (!(ab.window_s > ab.control_s))
    t.fail(t.has("absorb_window_s") ? "absorb_window_s" : "absorb_control_s",
           fmt::format("the average's window ({} s) must be longer than the control period ({} s)",
                       ab.window_s, ab.control_s));
  for (const char* key :
       {"absorb_gain", "absorb_latency_s", "absorb_control_s", "absorb_window_s", "absorb_reaction_s"})
    if (t.has(key) && !t.has("absorb")) t.fail(key, "shapes absorbing: give absorb = true too");
  if (ab.enabled && r.mode != "fleet")
    t.fail("absorb", "absorbing is modelled for a fleet-mode service (mode = \"fleet\")");
  for (const char* key : {"hourly", "start_hour", "burstiness"})
    if (t.has(key) && !(r.generate_rate > 0.0))
      t.fail(key, "shapes generated arrivals: give arrival_rate_per_s too");
  return c;
}

// Each service's node group: named and present (or the fleet's only one), held by one service, with room
// for its replicas; replicas left out fill the group.
void check_service_groups(Scenario& s) {
  std::set<std::string> taken;
  for (auto& c : s.services) {
    std::uint64_t group_gpus = 0;
    std::string gpu;
    const SourceLocation& at = c.where.at("group");
    if (s.fleet.groups.empty()) {
      if (!c.group.empty())
        throw ConfigError(at, c.prefix + ".group",
                          fmt::format("no [[fleet.group]] '{}': the fleet has no groups (leave group out to "
                                      "serve on the whole fleet)",
                                      c.group));
      group_gpus = s.fleet.total_gpus();
      gpu = s.fleet.gpu;
    } else {
      if (c.group.empty()) {
        if (s.fleet.groups.size() > 1)
          throw ConfigError(at, c.prefix + ".group",
                            "missing (the fleet has several [[fleet.group]] tables: name the one the service "
                            "runs on)");
        c.group = s.fleet.groups.front().name;
      }
      const auto g = std::find_if(s.fleet.groups.begin(), s.fleet.groups.end(),
                                  [&](const FleetGroupConfig& fg) { return fg.name == c.group; });
      if (g == s.fleet.groups.end())
        throw ConfigError(at, c.prefix + ".group", fmt::format("no [[fleet.group]] named '{}'", c.group));
      group_gpus = std::uint64_t{g->nodes} * g->gpus_per_node;
      gpu = g->gpu;
    }
    if (!taken.insert(c.group).second)
      throw ConfigError(
          at, c.prefix + ".group",
          fmt::format("group '{}' already serves another service (one service a group)", c.group));
    c.request.gpu = gpu;
    // A replica's GPUs: tp x pp.
    const std::uint64_t tp = std::uint64_t{c.request.tp} * c.request.pp;
    const std::string tp_key = c.request.pp > 1 ? "pp" : "tp";
    if (!c.replicas_given) {
      if (group_gpus < tp)
        throw ConfigError(c.where.at(tp_key), c.prefix + "." + tp_key,
                          fmt::format("{} GPUs a replica, more than the group's {}", tp, group_gpus));
      c.request.replicas = static_cast<std::uint32_t>(group_gpus / tp);
    } else if (std::uint64_t{c.request.replicas} * tp > group_gpus) {
      throw ConfigError(
          c.where.at("replicas"), c.prefix + ".replicas",
          fmt::format("{} replicas of {} GPUs need {} GPUs; the group has {}", c.request.replicas, tp,
                      std::uint64_t{c.request.replicas} * tp, group_gpus));
    }
    c.request.horizon_s = s.workload.horizon_s;
    c.request.interval_s = s.output.facility_interval_s;
  }
}

// [output] start: an ISO 8601 instant in whole seconds. The offset it is written in is kept (exports and
// clock hours use it): the text read without its zone, as if UTC, less the instant itself.
void parse_start(const TomlTable& t, OutputConfig& o) {
  const auto text = t.timestamp_text("start");
  if (!text) return;
  const auto utc = core::parse_timestamp(*text);
  if (!utc)
    t.fail("start", fmt::format("'{}' is not an ISO 8601 time (2026-01-01T00:00:00Z, "
                                "2026-07-01T00:00:00+02:00)",
                                *text));
  if (*utc != std::floor(*utc)) t.fail("start", "must be a whole second");
  std::string local_text = *text;
  while (!local_text.empty() && local_text.back() == ' ') local_text.pop_back();
  if (!local_text.empty() && (local_text.back() == 'Z' || local_text.back() == 'z')) local_text.pop_back();
  // The date (YYYY-MM-DD) takes the first ten characters; a sign after it starts the zone.
  const auto sign = local_text.find_first_of("+-", 10);
  if (sign != std::string::npos) local_text.resize(sign);
  const auto local = core::parse_timestamp(local_text);
  o.start = *text;
  o.start_unix_s = static_cast<std::int64_t>(*utc);
  o.start_utc_offset_s = local ? static_cast<std::int32_t>(*local - *utc) : 0;
}

OutputConfig parse_output(const TomlTable& t) {
  t.require_known({"path", "facility_interval_s", "node_interval_s", "gpu_changes", "start",
                   "step_waveform_min_s", "step_gpu_changes"});
  OutputConfig o;
  parse_start(t, o);
  if (auto p = t.string("path")) {
    o.path = *p;
    o.path_where = t.where("path");
  }
  // A floor on the intervals bounds every buffer they size, whatever the horizon (kMinSeriesIntervalS).
  for (const char* key : {"facility_interval_s", "node_interval_s"})
    if (const auto v = t.number(key); v && !(*v >= kMinSeriesIntervalS))
      t.fail(key, fmt::format("must be at least {} s (1 ms, the finest series a run writes), got {}",
                              kMinSeriesIntervalS, *v));
  o.facility_interval_s = t.number("facility_interval_s").value_or(o.facility_interval_s);
  o.node_interval_s = t.number("node_interval_s").value_or(o.node_interval_s);
  o.gpu_changes = t.boolean("gpu_changes").value_or(o.gpu_changes);
  o.step_waveform_min_s = t.number_at_least("step_waveform_min_s", 0.0, false);
  o.step_gpu_changes = t.boolean("step_gpu_changes").value_or(o.step_gpu_changes);
  return o;
}

}  // namespace

Scenario parse_scenario(std::string_view text, const std::filesystem::path& file) {
  return parse_scenario(text, file, {});
}

Scenario parse_scenario(std::string_view text, const std::filesystem::path& file,
                        const std::vector<std::string>& overrides, std::string_view origin) {
  toml::table root = core::parse_toml(text, file.string());
  std::string kept(text);
  if (!overrides.empty()) {
    // The result file keeps the text it was run from: the overrides go with it, as a comment.
    if (!kept.empty() && kept.back() != '\n') kept += '\n';
    kept +=
        origin == "--set"
            ? "\n# Overrides given on the command line (--set), applied in this order over the text above:\n"
            : fmt::format("\n# Overrides given to {}, applied in this order over the text above:\n", origin);
    for (const auto& a : overrides) {
      apply_override(root, a, origin);
      kept += "#   " + a + "\n";
    }
  }
  return parse_scenario_table(root, std::move(kept), file, "", {});
}

Scenario parse_scenario_table(const toml::table& root, std::string text, const std::filesystem::path& file,
                              const std::string& key_prefix, const std::vector<std::string>& extra_keys) {
  const std::string name = file.string();
  TomlTable top(root, key_prefix, name);
  std::vector<std::string> known = {"seed",     "fleet",    "facility", "predictor", "scheduler",
                                    "workload", "grid",     "output",   "name",      "description",
                                    "topology", "failures", "smoothing"};
  known.insert(known.end(), extra_keys.begin(), extra_keys.end());
  top.require_known(known);
  Scenario s;
  s.file = file;
  s.text = std::move(text);
  s.seed = static_cast<std::uint64_t>(top.integer("seed", 0, kMaxI64).value_or(1));
  (void)top.string("name");
  (void)top.string("description");
  if (auto t = top.table("fleet")) s.fleet = parse_fleet(*t);
  if (auto t = top.table("facility")) s.facility = parse_facility(*t);
  if (s.facility.pue > kWarnPue)
    s.warnings->add(fmt::format("{}: facility.pue = {} is above {}: even old air-cooled halls run near 2",
                                s.facility.pue_origin.to_string(), s.facility.pue, kWarnPue));
  if (auto t = top.table("predictor")) s.predictor = parse_predictor(*t);
  if (auto t = top.table("scheduler")) s.scheduler = parse_scheduler(*t);
  if (auto t = top.table("workload")) {
    s.workload = parse_workload(*t, file);
  } else {
    throw ConfigError(top.where(), "workload", "missing (a scenario needs a [workload] section)");
  }
  if (auto t = top.table("workload")) {
    std::size_t k = 0;
    for (const auto& st : t->tables("service")) s.services.push_back(parse_service(st, k++, s.seed, file));
  }
  if (s.workload.trace && s.workload.trace->fleet_scale != 1.0) {
    auto& tr = *s.workload.trace;
    // A node count scaled beyond what a fleet may hold (fleet_scale = 1e300) is refused, not cast.
    const auto scaled = [&tr](std::uint32_t nodes) {
      const double n = std::max(1.0, std::round(nodes * tr.fleet_scale));
      if (const auto i = core::integer_in_range<std::uint32_t>(n, 1, 10'000'000)) return *i;
      throw ConfigError(tr.where, "workload.trace.fleet_scale",
                        fmt::format("{} scales {} nodes to {:.3g}, beyond the 10000000 a fleet may hold",
                                    tr.fleet_scale, nodes, n));
    };
    s.fleet.nodes = scaled(s.fleet.nodes);
    if (!s.fleet.groups.empty()) {
      s.fleet.nodes = 0;
      for (auto& g : s.fleet.groups) {
        g.nodes = scaled(g.nodes);
        s.fleet.nodes += g.nodes;
      }
    }
    tr.arrival_scale *= tr.fleet_scale;
  }
  if (auto t = top.table("grid")) s.grid = parse_grid(*t, file);
  for (const auto& b : s.facility.batteries)
    if (b.mode == "peak_shave" && !(s.grid.import_limit_kw > 0.0))
      throw ConfigError(b.where, "grid.import_limit_kw",
                        "missing (a peak_shave battery holds import under it)");
  if (!s.grid.events.empty()) {
    const auto& first = s.grid.events.front();
    if (!s.facility.batteries.empty())
      throw ConfigError(
          first.where, "grid.event",
          "with [[facility.battery]] is not modelled (how batteries meet a dip): use one or the "
          "other");
    for (const auto& e : s.grid.events)
      if (e.at_s >= s.workload.horizon_s)
        throw ConfigError(e.where, "grid.event.at_s",
                          fmt::format("{} s is not before the horizon ({} s)", e.at_s, s.workload.horizon_s));
  }
  if (s.grid.carbon)
    s.scheduler.carbon =
        std::make_shared<const GridSignal>(read_grid_signal_csv(s.grid.carbon->file, s.grid.carbon->options));
  if (auto t = top.table("output")) s.output = parse_output(*t);
  // [failures]: checked against its declaration (sim/engine/failures_config.hpp), like a component's keys.
  if (auto t = top.table("failures")) {
    ParamSet raw = params_except(*t, {});
    raw.set_warnings(s.warnings);
    s.failures = parse_failure_config(raw);
  }
  // [smoothing]: the same (sim/fleet/smoothing_config.hpp).
  if (auto t = top.table("smoothing")) {
    ParamSet raw = params_except(*t, {});
    raw.set_warnings(s.warnings);
    s.smoothing = parse_smoothing_config(raw);
  }
  // The result path (given or the default) resolves against the scenario's folder, like every other path in
  // it (docs/scenario.md); `-o` on the command line is the user's own and stays relative to the current
  // directory.
  s.output.path = resolve(file, s.output.path.string());
  if (s.output.path_where.file.empty()) s.output.path_where = {name, 0, 0};
  // The topology's keys belong to topologies/ (parse_topology_config), like a predictor's parameters.
  if (auto t = top.table("topology")) {
    for (const auto& g : s.fleet.groups)
      if (g.gpus_per_node != s.fleet.groups.front().gpus_per_node)
        throw ConfigError(
            t->where(), "topology",
            fmt::format("a [topology] needs nodes of one size; the [[fleet.group]] tables have {} "
                        "and {} GPUs per node",
                        s.fleet.groups.front().gpus_per_node, g.gpus_per_node));
    s.topology = params_except(*t, {});
  }
  // Component parameters are checked against their declarations later, by the components' registries:
  // deprecated spellings found then go to the scenario's warnings.
  s.predictor.params.set_warnings(s.warnings);
  s.scheduler.params.set_warnings(s.warnings);
  for (auto& [name, p] : s.scheduler.policy_params) p.set_warnings(s.warnings);
  if (s.topology) s.topology->set_warnings(s.warnings);
  if (s.workload.jobs.empty() && !s.workload.generator && !s.workload.trace && !s.workload.preset &&
      s.services.empty())
    throw ConfigError({name, 0, 0}, "workload",
                      "no jobs: give [[workload.jobs]], jobs_csv, [workload.generator], [workload.trace], "
                      "[workload.preset] or [[workload.service]]");
  check_service_groups(s);
  // A job runs within one node group: the largest group bounds it (the whole fleet without groups).
  const std::uint64_t fleet_gpus = s.fleet.largest_group_gpus();
  const char* fleet_word = s.fleet.groups.size() > 1 ? "the largest node group" : "the fleet";
  for (const auto& j : s.workload.jobs)
    sim::check_gpu_count(j.class_origin, j.id, j.n_gpus, fleet_gpus, fleet_word);
  if (s.workload.generator)
    for (const auto& m : s.workload.generator->mix)
      for (auto n : m.n_gpus) sim::check_gpu_count(m.class_origin, "mix entry", n, fleet_gpus, fleet_word);
  return s;
}

std::uint64_t FleetConfig::total_gpus() const {
  if (groups.empty()) return std::uint64_t{nodes} * gpus_per_node;
  std::uint64_t n = 0;
  for (const auto& g : groups) n += std::uint64_t{g.nodes} * g.gpus_per_node;
  return n;
}

std::uint64_t FleetConfig::largest_group_gpus() const {
  if (groups.empty()) return std::uint64_t{nodes} * gpus_per_node;
  std::uint64_t n = 0;
  for (const auto& g : groups) n = std::max(n, std::uint64_t{g.nodes} * g.gpus_per_node);
  return n;
}

Scenario load_scenario(const std::filesystem::path& file) {
  return load_scenario(file, {});
}

Scenario load_scenario(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                       std::string_view origin) {
  const auto text = core::read_file_text(file);
  if (!text) throw ConfigError({file.string(), 0, 0}, "", "cannot open scenario file");
  return parse_scenario(*text, file, overrides, origin);
}

}  // namespace fleetwatt::runs
