// Physical layout of a fleet's nodes: which rack each node sits in. Placement policies and the network
// builders use it; the full interconnect graph lives in topology.hpp.
#pragma once

#include <cstdint>
#include <vector>

namespace fleetwatt::topologies {

class FleetLayout {
 public:
  /// `nodes` servers, `nodes_per_rack` to a rack (the last rack may be partly filled).
  FleetLayout(std::uint32_t nodes, std::uint32_t nodes_per_rack);

  [[nodiscard]] std::uint32_t nodes() const noexcept { return nodes_; }
  [[nodiscard]] std::uint32_t racks() const noexcept { return racks_; }
  [[nodiscard]] std::uint32_t nodes_per_rack() const noexcept { return nodes_per_rack_; }
  [[nodiscard]] std::uint32_t rack_of(std::uint32_t node) const noexcept { return node / nodes_per_rack_; }
  /// Number of distinct racks among the given nodes.
  [[nodiscard]] std::uint32_t racks_spanned(const std::vector<std::uint32_t>& nodes) const;

 private:
  std::uint32_t nodes_, nodes_per_rack_, racks_;
};

}  // namespace fleetwatt::topologies
