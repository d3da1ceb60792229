// Registries of scheduling and placement policies by name, with a one-line description each, for the
// scenario's [scheduler] section and `fleetwatt list`. Built-ins are registered by explicit calls.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fleetwatt/sim/scheduler.hpp"
#include "fleetwatt/workloads/scenario.hpp"

namespace fleetwatt::sim {

template <class T>
struct PolicyEntry {
  std::string name;
  std::string description;
  std::function<std::unique_ptr<T>(const workloads::SchedulerConfig&)> make;
};

using SchedulerEntry = PolicyEntry<Scheduler>;
using PlacementEntry = PolicyEntry<PlacementPolicy>;

/// Every built-in scheduler, in a stable order.
[[nodiscard]] const std::vector<SchedulerEntry>& scheduler_entries();
/// Every built-in placement policy, in a stable order.
[[nodiscard]] const std::vector<PlacementEntry>& placement_entries();

}  // namespace fleetwatt::sim
