// The scheduling seam. The engine calls a Scheduler whenever the queue or the free resources change; the
// scheduler picks jobs and asks the context for placements. Placement policies (first fit, pack, spread,
// topology-aware) are a separate seam so any policy can use any placement.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"
#include "fleetwatt/sim/fleet/job.hpp"

namespace fleetwatt::sim {

/// Chooses which GPUs a job gets, given the cluster's current state.
class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// GPUs for a job of n_gpus, or nothing if it cannot be placed now.
  [[nodiscard]] virtual std::optional<Placement> place(const Cluster& cluster,
                                                       std::uint32_t n_gpus) const = 0;
};

/// First fit: a job that fits on one node goes to the lowest-numbered node with room; a larger one takes
/// whole free nodes first (lowest first), then the remaining GPUs from the lowest-numbered nodes with room.
class FirstFitPlacement final : public PlacementPolicy {
 public:
  [[nodiscard]] std::string_view name() const override { return "first_fit"; }
  [[nodiscard]] std::optional<Placement> place(const Cluster& cluster, std::uint32_t n_gpus) const override;
};

/// Power figures of the fleet, for power-aware policies.
struct FleetPower {
  double gpu_idle_W = 0.0;
  double gpu_tdp_W = 0.0;
  double node_base_W = 0.0;
  double pue = 1.0;
  /// Several node groups: the fleet's idle IT power (every node's base and every GPU's idle), W. Unset:
  /// nodes x node_base_W + GPUs x gpu_idle_W (one group; the other fields are the reference group's).
  std::optional<double> idle_it_W;
  /// What the network (switches, NICs, links, storage) draws now, W; 0 without a [topology].
  double network_W = 0.0;
};

/// Power state of a node for energy-aware consolidation.
enum class NodePower { on, sleeping, waking };

/// What a scheduler sees and may do during one scheduling pass.
class SchedulerContext {
 public:
  virtual ~SchedulerContext() = default;
  [[nodiscard]] virtual Time now() const = 0;
  /// Queued jobs in arrival order.
  [[nodiscard]] virtual std::span<const JobIndex> queue() const = 0;
  [[nodiscard]] virtual const Job& job(JobIndex j) const = 0;
  [[nodiscard]] virtual const Cluster& cluster() const = 0;
  /// Placement the configured policy would give the job now.
  [[nodiscard]] virtual std::optional<Placement> place(JobIndex j) const = 0;
  /// Starts a queued job on the given GPUs (which must be free).
  virtual void start(JobIndex j, Placement gpus) = 0;
  /// Asks for another scheduling pass at time t (for policies that wait for a moment).
  virtual void wake_at(Time t) = 0;

  // Power-aware controls (sim/policies). Contexts that do not support one throw InvariantError
  // (core/assert.hpp).
  [[nodiscard]] virtual FleetPower fleet_power() const;
  /// Running jobs (paused ones included), in start order.
  [[nodiscard]] virtual std::span<const JobIndex> running() const;
  /// Facility power drawn right now, W.
  [[nodiscard]] virtual double facility_power_W() const;
  /// Suspends a running job in place: its GPUs stay allocated at idle power and its phase clock stops.
  virtual void pause(JobIndex j);
  /// Resumes a paused job where it stopped.
  virtual void resume(JobIndex j);
  /// Caps the per-GPU power of a job (0: no cap): phases above the cap draw the cap and stretch as the one
  /// clock model says (models/hardware/clock_model.hpp, fitted on the Zeus sweeps). A queued job is capped
  /// from its start; a running one from now, the rest of its current phase continuing at the new pace.
  virtual void set_power_cap(JobIndex j, double cap_W);
  [[nodiscard]] virtual NodePower node_power(NodeIndex n) const;
  /// Puts an idle, powered node to sleep: its GPUs draw nothing and the node draws sleep_W.
  virtual void sleep_node(NodeIndex n, double sleep_W);
  /// Wakes a sleeping node: it draws its base power plus wake_energy_J / latency for `latency`, then is
  /// usable (a scheduling pass follows).
  virtual void wake_node(NodeIndex n, Duration latency, double wake_energy_J);
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  virtual void schedule(SchedulerContext& ctx) = 0;
  /// Policy-specific figures of the run (name, value), e.g. lost GPU-hours of a demand-response event.
  [[nodiscard]] virtual std::vector<std::pair<std::string, double>> metrics() const { return {}; }
};

/// First in, first out: the head of the queue starts as soon as it can be placed; nothing overtakes it.
class FifoScheduler final : public Scheduler {
 public:
  [[nodiscard]] std::string_view name() const override { return "fifo"; }
  void schedule(SchedulerContext& ctx) override;
};

}  // namespace fleetwatt::sim
