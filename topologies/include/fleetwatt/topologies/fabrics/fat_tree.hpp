// A k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation switches
// and (k/2)^2 core switches, k^3/4 servers; [topology] kind = "fat_tree", k the smallest even radix that
// holds the fleet unless given.
#pragma once

#include <cstdint>
#include <vector>

#include "fleetwatt/topologies/fabrics/fabric_kinds.hpp"

namespace fleetwatt::topologies {

/// k-ary fat-tree (Al-Fares et al. 2008): k pods of k/2 edge (leaf) and k/2 aggregation (spine) switches,
/// (k/2)^2 core switches, k^3/4 host slots. k must be even and >= 2.
NetworkPorts build_fat_tree(Topology& topo, std::uint32_t k, const FabricSpec& fabric);
/// The smallest even k whose k^3/4 host slots hold `nodes` servers.
[[nodiscard]] std::uint32_t smallest_fat_tree_k(std::uint32_t nodes);
/// The [topology] kind "fat_tree": its keys and how it sizes itself to the fleet.
[[nodiscard]] FabricKindEntry fat_tree_kind();

}  // namespace fleetwatt::topologies
