// Rack layout arithmetic.
#include "fleetwatt/topologies/fleet_layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace fleetwatt::topologies {

FleetLayout::FleetLayout(std::uint32_t nodes, std::uint32_t nodes_per_rack)
    : nodes_(nodes), nodes_per_rack_(nodes_per_rack), racks_(0) {
  if (nodes_per_rack == 0) throw std::invalid_argument("nodes_per_rack must be positive");
  racks_ = (nodes + nodes_per_rack - 1) / nodes_per_rack;
}

std::uint32_t FleetLayout::racks_spanned(const std::vector<std::uint32_t>& nodes) const {
  std::vector<std::uint32_t> racks;
  racks.reserve(nodes.size());
  for (auto n : nodes) racks.push_back(rack_of(n));
  std::sort(racks.begin(), racks.end());
  return static_cast<std::uint32_t>(std::unique(racks.begin(), racks.end()) - racks.begin());
}

}  // namespace fleetwatt::topologies
