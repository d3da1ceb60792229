// The registries of scheduling and placement policies: each policy by name with its declared parameters,
// the [scheduler] section checked as a whole, and policies built from it.
#include <fmt/format.h>
#include <stdexcept>

#include "fleetwatt/sim/policies/policies.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"
#include "fleetwatt/sim/policies/topology_placement.hpp"
#include "policy_support.hpp"

namespace fleetwatt::sim {

const SchedulerRegistry& scheduler_entries() {
  // One explicit call per policy file of sim/src/policies/ (static self-registration is dropped by static
  // libraries); the order is the order `fleetwatt list` prints.
  static const SchedulerRegistry registry(
      "policy", {fifo_entry(), sjf_entry(), easy_entry(), powercap_entry(), carbon_entry(),
                 consolidate_entry(), dr_entry()});
  return registry;
}

namespace {

/// Rack size for rack-aware placement when the scenario has no topology.
std::uint32_t nodes_per_rack(const jobs::ParamSet& p) {
  const auto n = p.get_int("nodes_per_rack");
  if (n < 1 || n > 1'000'000)
    throw jobs::ConfigError(p.where_of("nodes_per_rack"), p.dotted("nodes_per_rack"),
                            fmt::format("must be a positive integer, got {}", n));
  return static_cast<std::uint32_t>(n);
}

jobs::ParamSpecs rack_params() {
  return {{"nodes_per_rack",
           jobs::ParamType::integer,
           std::int64_t{16},
           "",
           "servers",
           "rack size when the scenario has no [topology] (a topology gives its own racks)",
           {}}};
}

bool declares(const jobs::ParamSpecs& specs, const std::string& key) {
  for (const auto& s : specs) {
    if (s.name == key) return true;
    for (const auto& a : s.aliases)
      if (a == key) return true;
  }
  return false;
}

// The section's own keys that `specs` declares, as a set of its own (same section, same sink).
jobs::ParamSet subset(const jobs::ParamSet& all, const jobs::ParamSpecs& specs) {
  jobs::ParamSet out(all.section(), all.where());
  out.set_warnings(all.warnings());
  for (const auto& [k, v] : all.values())
    if (declares(specs, k)) out.set(k, v);
  return out;
}

}  // namespace

const PlacementRegistry& placement_entries() {
  // Unknown names read "unknown policy" as the schedulers' do: both are [scheduler] policies.
  static const PlacementRegistry registry(
      "policy", {
                    {"first_fit",
                     "lowest-numbered server with room; multi-server jobs take whole free servers first",
                     {},
                     [](const jobs::ParamSet&, const sim::SchedulerConfig&) {
                       return std::make_unique<FirstFitPlacement>();
                     }},
                    {"pack", "fewest servers, then fewest racks (racks from [topology], else nodes_per_rack)",
                     rack_params(),
                     [](const jobs::ParamSet& p, const sim::SchedulerConfig&) {
                       return std::make_unique<PackPlacement>(nodes_per_rack(p));
                     }},
                    {"spread", "across as many racks and servers as possible, one GPU per server in turn",
                     rack_params(),
                     [](const jobs::ParamSet& p, const sim::SchedulerConfig&) {
                       return std::make_unique<SpreadPlacement>(nodes_per_rack(p));
                     }},
                    {"topology_aware",
                     "best fit by topology: the tightest server, else the tightest rack, else fewest racks",
                     rack_params(),
                     [](const jobs::ParamSet& p, const sim::SchedulerConfig&) {
                       return std::make_unique<TopologyAwarePlacement>(nodes_per_rack(p));
                     }},
                });
  return registry;
}

void check_scheduler_config(const sim::SchedulerConfig& config) {
  const auto& policy = scheduler_entries().at(config.policy, config.policy_origin, "scheduler.policy");
  const auto& placement =
      placement_entries().at(config.placement, config.placement_origin, "scheduler.placement");
  // Every [scheduler.NAME] table is some policy's parameters (`fleetwatt compare` runs the others).
  for (const auto& [name, params] : config.policy_params) {
    const auto* e = scheduler_entries().find(name);
    if (!e)
      throw jobs::ConfigError(params.where(), params.section(),
                              fmt::format("unknown policy table [scheduler.{}] (known policies: {})", name,
                                          scheduler_entries().names()));
    (void)params.checked(e->params);
  }
  // The section's own keys: the chosen placement's, or the chosen policy's when it has no table (with a
  // table, the policy reads only the table: a key of it written here would do nothing).
  const bool has_table = config.policy_params.count(config.policy) > 0;
  jobs::ParamSpecs known = placement.params;
  if (!has_table) known.insert(known.end(), policy.params.begin(), policy.params.end());
  for (const auto& key : config.params.keys_in_source_order()) {
    if (has_table && declares(policy.params, key))
      throw jobs::ConfigError(config.params.where_of(key), config.params.dotted(key),
                              fmt::format("write it in [scheduler.{}], which holds policy {}'s parameters",
                                          policy.name, policy.name));
    if (known.empty())
      throw jobs::ConfigError(
          config.params.where_of(key), config.params.dotted(key),
          has_table ? fmt::format("unknown key (placement {} takes no parameters)", placement.name)
                    : fmt::format("unknown key (policy {} and placement {} take no parameters)", policy.name,
                                  placement.name));
  }
  (void)config.params.checked(known);
}

jobs::ParamSet policy_params(const sim::SchedulerConfig& config, const std::string& name) {
  const auto& e = scheduler_entries().at(name, config.policy_origin, "scheduler.policy");
  if (auto it = config.policy_params.find(name); it != config.policy_params.end())
    return it->second.checked(e.params);
  jobs::ParamSet own = subset(config.params, e.params);
  // Nothing written in [scheduler] itself: a missing parameter belongs in [scheduler.NAME].
  if (own.empty())
    own.set_section(config.params.section().empty() ? "scheduler." + name
                                                    : config.params.section() + "." + name);
  return own.checked(e.params);
}

sim::SchedulerConfig with_policy(const sim::SchedulerConfig& config, const std::string& policy) {
  sim::SchedulerConfig out = config;
  out.policy = policy;
  if (policy != config.policy) {
    const auto* placement = placement_entries().find(config.placement);
    out.params = subset(config.params, placement ? placement->params : jobs::ParamSpecs{});
  }
  return out;
}

std::unique_ptr<Scheduler> make_scheduler(const sim::SchedulerConfig& config) {
  check_scheduler_config(config);
  const auto& e = scheduler_entries().at(config.policy, config.policy_origin, "scheduler.policy");
  return e.make(policy_params(config, config.policy), config);
}

std::unique_ptr<PlacementPolicy> make_placement(const sim::SchedulerConfig& config) {
  const auto& e = placement_entries().at(config.placement, config.placement_origin, "scheduler.placement");
  return e.make(subset(config.params, e.params).checked(e.params), config);
}

}  // namespace fleetwatt::sim
