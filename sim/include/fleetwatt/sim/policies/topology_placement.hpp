// Placement policies that know racks: pack (fewest servers, then fewest racks), spread (across as many racks
// and servers as possible) and topology-aware best fit (the rack whose free GPUs fit the job most tightly).
// Racks come from the scenario's topology when it has one, else from `nodes_per_rack` ([scheduler], 16).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fleetwatt/sim/policies/scheduler.hpp"

namespace fleetwatt::sim {

class RackAwarePlacement : public PlacementPolicy {
 public:
  explicit RackAwarePlacement(std::uint32_t nodes_per_rack) : nodes_per_rack_(nodes_per_rack) {}
  /// The rack of every node of the fleet (from the topology); replaces the nodes_per_rack layout.
  void set_racks(std::vector<std::uint32_t> rack_of_node) {
    fleet_racks_ = std::move(rack_of_node);
    racks_.clear();
  }

 protected:
  /// Rack of every node of `cluster` (a node group's view is offset into the fleet's racks).
  [[nodiscard]] const std::vector<std::uint32_t>& racks(const Cluster& cluster) const;

 private:
  std::uint32_t nodes_per_rack_;
  std::vector<std::uint32_t> fleet_racks_;    ///< from the topology; empty: nodes_per_rack
  mutable std::vector<std::uint32_t> racks_;  ///< racks(cluster), cached for the last cluster layout
  mutable NodeIndex racks_offset_ = 0;
};

/// Fewest servers, then fewest racks: a job that fits on a server goes to the fullest server with room;
/// a larger one takes whole free servers from the racks with the most of them, and its remainder from the
/// tightest-fitting server, preferring its racks.
class PackPlacement final : public RackAwarePlacement {
 public:
  using RackAwarePlacement::RackAwarePlacement;
  [[nodiscard]] std::string_view name() const override { return "pack"; }
  [[nodiscard]] std::optional<Placement> place(const Cluster& cluster, std::uint32_t n_gpus) const override;
};

/// Across as many racks, then servers, as possible: one GPU at a time, rack by rack in turn.
class SpreadPlacement final : public RackAwarePlacement {
 public:
  using RackAwarePlacement::RackAwarePlacement;
  [[nodiscard]] std::string_view name() const override { return "spread"; }
  [[nodiscard]] std::optional<Placement> place(const Cluster& cluster, std::uint32_t n_gpus) const override;
};

/// Best fit by topology: a job that fits on a server goes to the tightest server; a larger one to the rack
/// whose free GPUs fit it most tightly (fullest servers first), else over the fewest racks.
class TopologyAwarePlacement final : public RackAwarePlacement {
 public:
  using RackAwarePlacement::RackAwarePlacement;
  [[nodiscard]] std::string_view name() const override { return "topology_aware"; }
  [[nodiscard]] std::optional<Placement> place(const Cluster& cluster, std::uint32_t n_gpus) const override;
};

}  // namespace fleetwatt::sim
