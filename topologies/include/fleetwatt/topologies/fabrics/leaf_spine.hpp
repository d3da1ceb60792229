// A two-tier leaf-spine fabric, every leaf linked to every spine, its uplinks sized by the servers'
// NIC bandwidth over the oversubscription; [topology] kind = "leaf_spine".
#pragma once

#include <cstdint>
#include <vector>

#include "fleetwatt/topologies/fabrics/fabric_kinds.hpp"

namespace fleetwatt::topologies {

/// Two-tier leaf-spine: every leaf links to every spine. Each leaf has `hosts_per_leaf` host slots of
/// `host_Bps`; its uplink capacity is hosts_per_leaf * host_Bps / oversubscription, split evenly over the
/// spines (fabric.link.bandwidth_Bps is ignored).
NetworkPorts build_leaf_spine(Topology& topo, std::uint32_t leaves, std::uint32_t spines,
                              std::uint32_t hosts_per_leaf, double host_Bps, double oversubscription,
                              const FabricSpec& fabric);
/// The [topology] kind "leaf_spine": its keys and how it sizes itself to the fleet.
[[nodiscard]] FabricKindEntry leaf_spine_kind();

}  // namespace fleetwatt::topologies
