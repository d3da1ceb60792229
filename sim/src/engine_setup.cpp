// From a scenario to an engine's parts: the GPU preset with overrides, and policies by name with their
// declared parameters (the [scheduler] section checked as a whole).
#include <fmt/format.h>
#include <stdexcept>

#include "fleetwatt/sim/engine.hpp"
#include "fleetwatt/sim/policies.hpp"
#include "fleetwatt/sim/policy_registry.hpp"
#include "fleetwatt/sim/topology_placement.hpp"
#include "policy_support.hpp"

namespace fleetwatt::sim {

const SchedulerRegistry& scheduler_entries() {
  // One explicit call per policy file of sim/policies/ (static self-registration is dropped by static
  // libraries); the order is the order `fleetwatt list` prints.
  static const SchedulerRegistry registry(
      "policy", {fifo_entry(), sjf_entry(), easy_entry(), powercap_entry(), carbon_entry(),
                 consolidate_entry(), dr_entry()});
  return registry;
}

namespace {

/// Rack size for rack-aware placement when the scenario has no topology.
std::uint32_t nodes_per_rack(const workloads::ParamSet& p) {
  const auto n = p.get_int("nodes_per_rack");
  if (n < 1 || n > 1'000'000)
    throw workloads::ConfigError(p.where_of("nodes_per_rack"), p.dotted("nodes_per_rack"),
                                 fmt::format("must be a positive integer, got {}", n));
  return static_cast<std::uint32_t>(n);
}

workloads::ParamSpecs rack_params() {
  return {{"nodes_per_rack",
           workloads::ParamType::integer,
           std::int64_t{16},
           "",
           "servers",
           "rack size when the scenario has no [topology] (a topology gives its own racks)",
           {}}};
}

bool declares(const workloads::ParamSpecs& specs, const std::string& key) {
  for (const auto& s : specs) {
    if (s.name == key) return true;
    for (const auto& a : s.aliases)
      if (a == key) return true;
  }
  return false;
}

// The section's own keys that `specs` declares, as a set of its own (same section, same sink).
workloads::ParamSet subset(const workloads::ParamSet& all, const workloads::ParamSpecs& specs) {
  workloads::ParamSet out(all.section(), all.where());
  out.set_warnings(all.warnings());
  for (const auto& [k, v] : all.values())
    if (declares(specs, k)) out.set(k, v);
  return out;
}

// A GPU idling above its TDP (an idle override above the preset's TDP, or the reverse) would make every
// job lower its node's power: refused, at the fleet's gpu key (the override may be on either side).
void check_idle_below_tdp(const models::GpuHardware& gpu, const workloads::SourceLocation& where,
                          const std::string& field) {
  if (gpu.idle_W > gpu.tdp_W)
    throw workloads::ConfigError(
        where, field,
        fmt::format("{} idles at {:g} W, above its TDP of {:g} W", gpu.id, gpu.idle_W, gpu.tdp_W));
}

}  // namespace

const PlacementRegistry& placement_entries() {
  // Unknown names read "unknown policy" as the schedulers' do: both are [scheduler] policies.
  static const PlacementRegistry registry(
      "policy", {
                    {"first_fit",
                     "lowest-numbered server with room; multi-server jobs take whole free servers first",
                     {},
                     [](const workloads::ParamSet&, const workloads::SchedulerConfig&) {
                       return std::make_unique<FirstFitPlacement>();
                     }},
                    {"pack", "fewest servers, then fewest racks (racks from [topology], else nodes_per_rack)",
                     rack_params(),
                     [](const workloads::ParamSet& p, const workloads::SchedulerConfig&) {
                       return std::make_unique<PackPlacement>(nodes_per_rack(p));
                     }},
                    {"spread", "across as many racks and servers as possible, one GPU per server in turn",
                     rack_params(),
                     [](const workloads::ParamSet& p, const workloads::SchedulerConfig&) {
                       return std::make_unique<SpreadPlacement>(nodes_per_rack(p));
                     }},
                    {"topology_aware",
                     "best fit by topology: the tightest server, else the tightest rack, else fewest racks",
                     rack_params(),
                     [](const workloads::ParamSet& p, const workloads::SchedulerConfig&) {
                       return std::make_unique<TopologyAwarePlacement>(nodes_per_rack(p));
                     }},
                });
  return registry;
}

void check_scheduler_config(const workloads::SchedulerConfig& config) {
  const auto& policy = scheduler_entries().at(config.policy, config.policy_origin, "scheduler.policy");
  const auto& placement =
      placement_entries().at(config.placement, config.placement_origin, "scheduler.placement");
  // Every [scheduler.NAME] table is some policy's parameters (`fleetwatt compare` runs the others).
  for (const auto& [name, params] : config.policy_params) {
    const auto* e = scheduler_entries().find(name);
    if (!e)
      throw workloads::ConfigError(params.where(), params.section(),
                                   fmt::format("unknown policy table [scheduler.{}] (known policies: {})",
                                               name, scheduler_entries().names()));
    (void)params.checked(e->params);
  }
  // The section's own keys: the chosen placement's, or the chosen policy's when it has no table (with a
  // table, the policy reads only the table: a key of it written here would do nothing).
  const bool has_table = config.policy_params.count(config.policy) > 0;
  workloads::ParamSpecs known = placement.params;
  if (!has_table) known.insert(known.end(), policy.params.begin(), policy.params.end());
  for (const auto& key : config.params.keys_in_source_order()) {
    if (has_table && declares(policy.params, key))
      throw workloads::ConfigError(
          config.params.where_of(key), config.params.dotted(key),
          fmt::format("write it in [scheduler.{}], which holds policy {}'s parameters", policy.name,
                      policy.name));
    if (known.empty())
      throw workloads::ConfigError(
          config.params.where_of(key), config.params.dotted(key),
          has_table ? fmt::format("unknown key (placement {} takes no parameters)", placement.name)
                    : fmt::format("unknown key (policy {} and placement {} take no parameters)", policy.name,
                                  placement.name));
  }
  (void)config.params.checked(known);
}

workloads::ParamSet policy_params(const workloads::SchedulerConfig& config, const std::string& name) {
  const auto& e = scheduler_entries().at(name, config.policy_origin, "scheduler.policy");
  if (auto it = config.policy_params.find(name); it != config.policy_params.end())
    return it->second.checked(e.params);
  workloads::ParamSet own = subset(config.params, e.params);
  // Nothing written in [scheduler] itself: a missing parameter belongs in [scheduler.NAME].
  if (own.empty())
    own.set_section(config.params.section().empty() ? "scheduler." + name
                                                    : config.params.section() + "." + name);
  return own.checked(e.params);
}

workloads::SchedulerConfig with_policy(const workloads::SchedulerConfig& config, const std::string& policy) {
  workloads::SchedulerConfig out = config;
  out.policy = policy;
  if (policy != config.policy) {
    const auto* placement = placement_entries().find(config.placement);
    out.params = subset(config.params, placement ? placement->params : workloads::ParamSpecs{});
  }
  return out;
}

std::unique_ptr<Scheduler> make_scheduler(const workloads::SchedulerConfig& config) {
  check_scheduler_config(config);
  const auto& e = scheduler_entries().at(config.policy, config.policy_origin, "scheduler.policy");
  return e.make(policy_params(config, config.policy), config);
}

std::unique_ptr<PlacementPolicy> make_placement(const workloads::SchedulerConfig& config) {
  const auto& e = placement_entries().at(config.placement, config.placement_origin, "scheduler.placement");
  return e.make(subset(config.params, e.params).checked(e.params), config);
}

EngineSetup engine_setup(const workloads::Scenario& s) {
  EngineSetup e;
  e.nodes = s.fleet.nodes;
  e.gpus_per_node = s.fleet.gpus_per_node;
  // A user's preset file (validated with file:line:column errors) may add GPUs or redefine built-ins.
  const auto user = s.fleet.gpu_file.empty() ? std::vector<models::GpuHardware>{}
                                             : models::load_gpu_preset_file(s.fleet.gpu_file);
  auto find = [&user](const std::string& id, const workloads::SourceLocation& where,
                      const std::string& field) {
    try {
      return models::find_gpu(id, user);
    } catch (const std::out_of_range& err) {
      throw workloads::ConfigError(where, field, err.what());
    }
  };
  if (s.fleet.groups.empty()) {
    e.gpu = find(s.fleet.gpu, s.fleet.gpu_origin, "fleet.gpu");
    if (s.fleet.gpu_idle_W) e.gpu.idle_W = *s.fleet.gpu_idle_W;
    if (s.fleet.gpu_tdp_W) e.gpu.tdp_W = *s.fleet.gpu_tdp_W;
    check_idle_below_tdp(e.gpu, s.fleet.gpu_origin, "fleet.gpu_idle_w");
    e.node_base_W = s.fleet.node_base_W;
  } else {
    // Node groups: each its preset with its overrides; node_base_w defaults to [fleet] node_base_w.
    for (std::size_t k = 0; k < s.fleet.groups.size(); ++k) {
      const auto& g = s.fleet.groups[k];
      FleetGroup out{g.name, g.nodes, g.gpus_per_node,
                     find(g.gpu, g.gpu_origin, fmt::format("fleet.group[{}].gpu", k)),
                     g.node_base_W.value_or(s.fleet.node_base_W)};
      if (g.gpu_idle_W) out.gpu.idle_W = *g.gpu_idle_W;
      if (g.gpu_tdp_W) out.gpu.tdp_W = *g.gpu_tdp_W;
      check_idle_below_tdp(out.gpu, g.gpu_origin, fmt::format("fleet.group[{}].gpu_idle_w", k));
      e.groups.push_back(std::move(out));
    }
    // The reference group (the first) stands for the fleet where one GPU is asked for (predictions before
    // placement, run-time matching of replayed jobs, NVLink bandwidth of a one-group topology).
    e.gpu = e.groups.front().gpu;
    e.node_base_W = e.groups.front().node_base_W;
    if (e.groups.size() == 1) e.groups.clear();  // one group is the uniform fleet
  }
  e.node_load_fraction = s.fleet.node_load_fraction;
  e.pue = s.facility.pue;
  {
    const CoolingDesign design =
        cooling_design(s.facility.cooling, s.facility.cooling_origin, s.facility.cooling_params);
    if (s.facility.cooling != "constant") {
      e.cooling = design;
      e.weather = std::make_shared<const workloads::Weather>(
          workloads::read_weather_csv(s.facility.weather_csv, s.facility.weather_start));
    }
  }
  e.carbon_kg_per_J = s.facility.carbon_kg_per_J;
  e.import_limit_W = s.grid.import_limit_kw * 1e3;
  for (const auto& b : s.facility.batteries) {
    BatteryConfig c;
    c.energy_J = b.energy_kwh * 3.6e6;
    c.power_W = b.power_kw * 1e3;
    c.round_trip_efficiency = b.round_trip_efficiency;
    c.soc_min = b.soc_min;
    c.soc_max = b.soc_max;
    c.soc_initial = b.soc_initial;
    c.mode = b.mode == "ramp_limit" ? BatteryMode::ramp_limit
             : b.mode == "carbon"   ? BatteryMode::carbon
                                    : BatteryMode::peak_shave;
    c.import_limit_W = e.import_limit_W;
    c.ramp_W_per_min = b.ramp_limit_kw_per_min * 1e3;
    c.charge_below_g_per_kwh = b.charge_below_g_per_kwh;
    c.discharge_above_g_per_kwh = b.discharge_above_g_per_kwh;
    e.batteries.push_back(c);
  }
  e.carbon_signal = s.scheduler.carbon;
  if (s.grid.price)
    e.price_signal = std::make_shared<const workloads::GridSignal>(
        workloads::read_grid_signal_csv(s.grid.price->file, s.grid.price->options));
  e.horizon = Time::from_seconds(s.workload.horizon_s);
  try {
    e.warmup = Duration::from_seconds(s.workload.warmup_s.value_or(0.0));
  } catch (const std::out_of_range&) {
    throw workloads::ConfigError(s.workload.warmup_where, "workload.warmup_s",
                                 "too long for the simulated clock (at most ~292 years)");
  }
  e.facility_interval = Duration::from_seconds(s.output.facility_interval_s);
  e.node_interval = Duration::from_seconds(s.output.node_interval_s);
  if (s.output.step_waveform_min_s)
    e.step_waveform_min = Duration::from_seconds(*s.output.step_waveform_min_s);
  e.step_gpu_changes = s.output.step_gpu_changes;
  if (s.topology) {
    e.topology = topologies::parse_topology_config(*s.topology, s.file.parent_path());
    // NVLink bandwidth from the GPU preset unless the scenario sets it.
    if (!e.topology->nvlink_set && e.gpu.nvlink_bw_Bps > 0.0)
      e.topology->node.nvlink.bandwidth_Bps = e.gpu.nvlink_bw_Bps;
    // The GPU's PCIe link to its NIC likewise (GPUDirect RDMA cannot exceed it).
    if (!e.topology->pcie_set && e.gpu.pcie_bw_Bps > 0.0) {
      e.topology->node.pcie.bandwidth_Bps = e.gpu.pcie_bw_Bps;
      e.topology->node.pcie_root.bandwidth_Bps = 2.0 * e.gpu.pcie_bw_Bps;
    }
  }
  if (s.failures.enabled) {
    e.failures.enabled = true;
    e.failures.rate_per_gpu_hour = s.failures.rate_per_gpu_hour;
    try {
      e.failures.restart_delay = Duration::from_seconds(s.failures.restart_delay_s);
      e.failures.restart_ramp = Duration::from_seconds(s.failures.restart_ramp_s);
    } catch (const std::out_of_range&) {
      throw workloads::ConfigError(s.failures.where, "failures",
                                   "restart times too long for the simulated clock (at most ~292 years)");
    }
    e.failures.seed = s.seed;
  }
  // [smoothing]: its figures always (a job's own mode may turn it on where the table leaves it off).
  e.smoothing.mode = s.smoothing.mode;
  e.smoothing.floor_fraction = s.smoothing.floor_fraction;
  e.smoothing.ramp_up_W_per_s = s.smoothing.ramp_up_w_per_s;
  e.smoothing.ramp_down_W_per_s = s.smoothing.ramp_down_w_per_s;
  try {
    e.smoothing.hysteresis = Duration::from_seconds(s.smoothing.hysteresis_s);
  } catch (const std::out_of_range&) {
    throw workloads::ConfigError(s.smoothing.where, "smoothing.hysteresis_s",
                                 "too long for the simulated clock (at most ~292 years)");
  }
  if (e.facility_interval <= Duration::zero() || e.node_interval <= Duration::zero())
    throw workloads::ConfigError({s.file.string(), 0, 0}, "output",
                                 "sampling intervals must be at least 1 ns");
  return e;
}

}  // namespace fleetwatt::sim
