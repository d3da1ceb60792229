// Node groups' own views of the cluster. On a fleet of several node groups, a placement policy must place a
// job within one group (one GPU type per job): each group keeps its nodes as a cluster of its own, numbered
// from the group's first GPU, and every allocation or release goes to the fleet's cluster and to the
// group's view together. With one group there are no views and the fleet's cluster is the only one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "fleetwatt/sim/fleet/cluster.hpp"
#include "fleetwatt/sim/fleet/fleet_layout.hpp"
#include "fleetwatt/sim/policies/scheduler.hpp"

namespace fleetwatt::sim {

class GroupViews {
 public:
  /// Views of `fleet`'s groups as `layout` lays them out; both must outlive this object.
  GroupViews(const FleetLayout& layout, Cluster& fleet);

  /// True when the fleet has several groups (and so views).
  [[nodiscard]] bool several() const noexcept { return !views_.empty(); }
  /// A placement of `n_gpus` in the first group, in scenario order, whose GPU type `runs_on` accepts and
  /// where `policy` finds room; in global GPU indices.
  [[nodiscard]] std::optional<Placement> place(const PlacementPolicy& policy, std::uint32_t n_gpus,
                                               const std::function<bool(std::uint32_t type)>& runs_on) const;
  /// Allocates (or releases) GPUs, all in one group, in the fleet's cluster and in their group's view.
  void allocate(JobIndex owner, std::span<const GpuIndex> gpus);
  void release(JobIndex owner, std::span<const GpuIndex> gpus);

 private:
  /// The group of `gpus` (all in one) and their numbers within it.
  [[nodiscard]] std::pair<std::uint32_t, std::vector<GpuIndex>> local(std::span<const GpuIndex> gpus) const;

  const FleetLayout& layout_;
  Cluster& fleet_;
  std::vector<Cluster> views_;  ///< per group; empty for one group
};

}  // namespace fleetwatt::sim
