// A ring of routers (a 1-D torus, fabrics/torus.hpp); [topology] kind = "ring".
#pragma once

#include <cstdint>
#include <vector>

#include "fleetwatt/topologies/fabrics/fabric_kinds.hpp"

namespace fleetwatt::topologies {

/// Ring of routers (a 1-D torus).
NetworkPorts build_ring(Topology& topo, std::uint32_t routers, std::uint32_t hosts_per_router,
                        const FabricSpec& fabric);
/// The [topology] kind "ring": its keys and how it sizes itself to the fleet.
[[nodiscard]] FabricKindEntry ring_kind();

}  // namespace fleetwatt::topologies
