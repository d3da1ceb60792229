// A dragonfly (Kim et al., ISCA 2008): groups of routers linked all-to-all inside a group, with global
// links between groups spread as evenly as the ports allow; [topology] kind = "dragonfly".
#pragma once

#include <cstdint>
#include <vector>

#include "fleetwatt/topologies/fabrics/fabric_kinds.hpp"

namespace fleetwatt::topologies {

/// Dragonfly (Kim et al. 2008): `groups` groups of `routers` routers, all-to-all inside a group; each router
/// has `global_links` links to other groups, spread so that groups are joined as evenly as possible.
NetworkPorts build_dragonfly(Topology& topo, std::uint32_t groups, std::uint32_t routers,
                             std::uint32_t hosts_per_router, std::uint32_t global_links,
                             const FabricSpec& fabric);
/// The [topology] kind "dragonfly": its keys and how it sizes itself to the fleet.
[[nodiscard]] FabricKindEntry dragonfly_kind();

}  // namespace fleetwatt::topologies
