// The engine's controls behind one object: what a policy may do to running jobs and idle nodes - pause and
// resume, cap a job's GPUs (now or from its start), put a node to sleep and wake it. The scheduler context
// hands every such request to it; the event loop and the job state machine stay in engine.cpp.
#pragma once

#include "fleetwatt/sim/engine.hpp"

namespace fleetwatt::sim {

// Event priorities at one instant: completions and arrivals settle before the scheduler looks at the queue.
// Arrivals come before a policy's wake-ups: each arrival is scheduled when the one before it arrives, so its
// place among the instant's events must not depend on when it was scheduled.
inline constexpr int kPhasePriority = 0;
inline constexpr int kArrivalPriority = 1;
inline constexpr int kWakePriority = 2;
inline constexpr int kSchedulePriority = 10;

class Engine::Controls {
 public:
  explicit Controls(Engine& e) : e_(e) {}

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

  Engine& e_;
};

}  // namespace fleetwatt::sim
