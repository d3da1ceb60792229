// The scheduling seam. The engine calls a Scheduler whenever the queue or the free resources change; the
// scheduler picks jobs and asks the context for placements. Placement policies (first fit, pack, spread,
// topology-aware) are a separate seam so any policy can use any placement.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "fleetwatt/sim/cluster.hpp"
#include "fleetwatt/sim/job.hpp"
#include "fleetwatt/sim/time.hpp"

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
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  virtual void schedule(SchedulerContext& ctx) = 0;
};

/// First in, first out: the head of the queue starts as soon as it can be placed; nothing overtakes it.
class FifoScheduler final : public Scheduler {
 public:
  [[nodiscard]] std::string_view name() const override { return "fifo"; }
  void schedule(SchedulerContext& ctx) override;
};

}  // namespace fleetwatt::sim
