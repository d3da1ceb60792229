// Registries of scheduling and placement policies by name (core/registry.hpp's shape), each with a one-line
// description and the declaration of its parameters, for the scenario's [scheduler] section and `fleetwatt
// list`. Built-ins are registered by explicit calls (one per file of sim/src/policies/), never by static
// self-registration.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fleetwatt/core/registry.hpp"
#include "fleetwatt/jobs/param_set.hpp"
#include "fleetwatt/sim/policies/scheduler.hpp"
#include "fleetwatt/sim/policies/scheduler_config.hpp"

namespace fleetwatt::sim {

/// Builds a policy from its parameters, already checked against its declared ones (defaults from there;
/// every other key is an error).
template <class T>
using PolicyFactory =
    std::function<std::unique_ptr<T>(const jobs::ParamSet& params, const sim::SchedulerConfig&)>;
template <class T>
using PolicyEntry = core::RegistryEntry<PolicyFactory<T>>;
using SchedulerEntry = PolicyEntry<Scheduler>;
using PlacementEntry = PolicyEntry<PlacementPolicy>;
using SchedulerRegistry = core::Registry<PolicyFactory<Scheduler>>;
using PlacementRegistry = core::Registry<PolicyFactory<PlacementPolicy>>;

/// Every built-in scheduler, in a stable order.
[[nodiscard]] const SchedulerRegistry& scheduler_entries();
/// Every built-in placement policy, in a stable order.
[[nodiscard]] const PlacementRegistry& placement_entries();
/// Checks a [scheduler] section as a whole: every [scheduler.NAME] table names a known policy and holds
/// only that policy's parameters; the section's own keys belong to the chosen policy or placement.
/// Deprecated spellings are reported to the parameters' warning sink. Throws ConfigError otherwise.
void check_scheduler_config(const sim::SchedulerConfig& config);

/// The parameters policy `name` reads: its [scheduler.NAME] table, else (for the scenario's chosen policy)
/// the section's own keys that the policy declares. Checked against the policy's declaration.
[[nodiscard]] jobs::ParamSet policy_params(const sim::SchedulerConfig& config, const std::string& name);

/// The same [scheduler] section with another policy chosen (`fleetwatt compare`): the section's own keys
/// of the scenario's policy stay with it, the placement's are kept.
[[nodiscard]] sim::SchedulerConfig with_policy(const sim::SchedulerConfig& config, const std::string& policy);

/// Scheduler and placement policies by name; unknown names are ConfigErrors at the scenario's location.
[[nodiscard]] std::unique_ptr<Scheduler> make_scheduler(const SchedulerConfig& config);
[[nodiscard]] std::unique_ptr<PlacementPolicy> make_placement(const SchedulerConfig& config);

}  // namespace fleetwatt::sim
