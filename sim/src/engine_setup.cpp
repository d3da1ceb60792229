// From a scenario to an engine's parts: the GPU preset with overrides, and policies by name.
#include <fmt/format.h>

#include "fleetwatt/sim/engine.hpp"
#include "fleetwatt/sim/policies.hpp"
#include "fleetwatt/sim/policy_registry.hpp"
#include "fleetwatt/sim/topology_placement.hpp"

namespace fleetwatt::sim {

const std::vector<SchedulerEntry>& scheduler_entries() {
  static const std::vector<SchedulerEntry> entries = [] {
    std::vector<SchedulerEntry> e = {
        {"fifo", "first in, first out; the queue head blocks everything behind it",
         [](const workloads::SchedulerConfig&) { return std::make_unique<FifoScheduler>(); }},
    };
    for (auto& p : policy_scheduler_entries()) e.push_back(std::move(p));
    return e;
  }();
  return entries;
}

/// Rack size for rack-aware placement when the scenario has no topology.
static std::uint32_t nodes_per_rack(const workloads::SchedulerConfig& c) {
  const auto n = c.params.get_int("nodes_per_rack", 16);
  if (n < 1 || n > 1'000'000)
    throw workloads::ConfigError(c.params.where_of("nodes_per_rack"), "scheduler.nodes_per_rack",
                                 fmt::format("must be a positive integer, got {}", n));
  return static_cast<std::uint32_t>(n);
}

const std::vector<PlacementEntry>& placement_entries() {
  static const std::vector<PlacementEntry> entries = {
      {"first_fit", "lowest-numbered server with room; multi-server jobs take whole free servers first",
       [](const workloads::SchedulerConfig&) { return std::make_unique<FirstFitPlacement>(); }},
      {"pack",
       "fewest servers, then fewest racks (racks from [topology], else [scheduler] nodes_per_rack = 16)",
       [](const workloads::SchedulerConfig& c) {
         return std::make_unique<PackPlacement>(nodes_per_rack(c));
       }},
      {"spread", "across as many racks and servers as possible, one GPU per server in turn",
       [](const workloads::SchedulerConfig& c) {
         return std::make_unique<SpreadPlacement>(nodes_per_rack(c));
       }},
      {"topology_aware",
       "best fit by topology: the tightest server, else the tightest rack, else fewest racks",
       [](const workloads::SchedulerConfig& c) {
         return std::make_unique<TopologyAwarePlacement>(nodes_per_rack(c));
       }},
  };
  return entries;
}

template <class T>
static std::unique_ptr<T> make_named(const std::vector<PolicyEntry<T>>& entries, const std::string& name,
                                     const workloads::SourceLocation& where, const char* field,
                                     const workloads::SchedulerConfig& config) {
  std::vector<std::string> names;
  for (const auto& e : entries) {
    if (e.name == name) return e.make(config);
    names.push_back(e.name);
  }
  throw workloads::ConfigError(where, field,
                               fmt::format("unknown policy '{}' (known: {})", name, fmt::join(names, ", ")));
}

std::unique_ptr<Scheduler> make_scheduler(const workloads::SchedulerConfig& config) {
  return make_named(scheduler_entries(), config.policy, config.policy_origin, "scheduler.policy", config);
}

std::unique_ptr<PlacementPolicy> make_placement(const workloads::SchedulerConfig& config) {
  return make_named(placement_entries(), config.placement, config.placement_origin, "scheduler.placement",
                    config);
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
      e.groups.push_back(std::move(out));
    }
    // The reference group (the first) stands for the fleet where one GPU is asked for (predictions before
    // placement, run-time matching of replayed jobs, NVLink bandwidth of a one-group topology).
    e.gpu = e.groups.front().gpu;
    e.node_base_W = e.groups.front().node_base_W;
    if (e.groups.size() == 1) e.groups.clear();  // one group is the uniform fleet
  }
  e.pue = s.facility.pue;
  e.carbon_kg_per_J = s.facility.carbon_kg_per_J;
  e.carbon_signal = s.scheduler.carbon;
  if (s.grid.price)
    e.price_signal = std::make_shared<const workloads::GridSignal>(
        workloads::read_grid_signal_csv(s.grid.price->file, s.grid.price->options));
  e.horizon = Time::from_seconds(s.workload.horizon_s);
  e.facility_interval = Duration::from_seconds(s.output.facility_interval_s);
  e.node_interval = Duration::from_seconds(s.output.node_interval_s);
  if (s.topology) {
    e.topology = topologies::parse_topology_config(*s.topology, s.file.parent_path());
    // NVLink bandwidth from the GPU preset unless the scenario sets it.
    if (!e.topology->nvlink_set && e.gpu.nvlink_bw_Bps > 0.0)
      e.topology->node.nvlink.bandwidth_Bps = e.gpu.nvlink_bw_Bps;
  }
  if (e.facility_interval <= Duration::zero() || e.node_interval <= Duration::zero())
    throw workloads::ConfigError({s.file.string(), 0, 0}, "output",
                                 "sampling intervals must be at least 1 ns");
  return e;
}

}  // namespace fleetwatt::sim
