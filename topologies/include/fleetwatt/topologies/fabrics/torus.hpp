// A torus of routers in 1, 2 or 3 dimensions with wrap-around links; [topology] kind = "torus", a
// square 2-D torus just large enough unless dims are given. A ring (fabrics/ring.hpp) is its 1-D case.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleetwatt/topologies/fabrics/fabric_kinds.hpp"

namespace fleetwatt::topologies {

/// Torus of 1 to 3 dimensions with wrap-around links; a router at every point, hosts_per_router hosts each.
NetworkPorts build_torus(Topology& topo, const std::vector<std::uint32_t>& dims,
                         std::uint32_t hosts_per_router, const FabricSpec& fabric);
/// What build_torus makes of `dims`, counted without building it; `key` names the key that set them.
[[nodiscard]] FabricSize torus_size(const std::vector<std::uint32_t>& dims, std::uint32_t hosts_per_router,
                                    std::string key);

/// The [topology] kind "torus": its keys and how it sizes itself to the fleet.
[[nodiscard]] FabricKindEntry torus_kind();

}  // namespace fleetwatt::topologies
