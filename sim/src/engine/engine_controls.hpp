// What a policy may do to running jobs and idle nodes, behind one object: pause and resume, cap a job's GPUs
// (now or from its start), put a node to sleep and wake it. The scheduler context hands every such request
// to it. It reaches the jobs through the engine's JobRuntime and the nodes through the parts it is given,
// nothing else of the engine.
#pragma once

#include <functional>
#include <vector>

#include "fleetwatt/sim/fleet/cluster.hpp"
#include "fleetwatt/sim/fleet/fleet_layout.hpp"
#include "fleetwatt/sim/policies/group_views.hpp"
#include "fleetwatt/sim/policies/scheduler.hpp"
#include "fleetwatt/sim/power/power_ledger.hpp"
#include "job_runtime.hpp"

namespace fleetwatt::sim {

class Failures;

/// The fleet's nodes as sleep and wake change them.
struct FleetNodes {
  Cluster& cluster;
  GroupViews& groups;
  PowerLedger& ledger;
  const FleetLayout& layout;
  std::vector<NodePower>& power;           ///< each node's state
  std::function<void()> request_schedule;  ///< a woken node's GPUs are there to be placed
};

class Controls {
 public:
  /// `failures`: null unless [failures] is enabled (a paused job cannot fail).
  Controls(JobRuntime& jobs, Failures* failures, FleetNodes nodes)
      : jobs_(jobs), failures_(failures), nodes_(std::move(nodes)) {}

  /// Suspends a running job in place: its GPUs stay allocated at idle power and its phase clock stops.
  void pause(JobIndex j);
  /// Resumes a paused job where it stopped.
  void resume(JobIndex j);
  /// Caps a queued job from its start, or a running one from now (the rest of its phase at the new pace).
  void set_power_cap(JobIndex j, double cap_W);
  /// Puts an idle, powered node to sleep: its GPUs draw nothing and the node draws sleep_W.
  void sleep_node(NodeIndex n, double sleep_W);
  /// Wakes a sleeping node: `latency` at base power plus wake_energy_J spread over it, then on.
  void wake_node(NodeIndex n, Duration latency, double wake_energy_J);

 private:
  /// Changes a running job's GPU cap: the current phase's remaining work continues at the new pace.
  void recap(JobIndex j, double cap_W);

  JobRuntime& jobs_;
  Failures* failures_;
  FleetNodes nodes_;
};

}  // namespace fleetwatt::sim
