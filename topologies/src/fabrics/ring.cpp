// The ring fabric kind (fabrics/ring.hpp).
#include "fleetwatt/topologies/fabrics/ring.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fabric_params.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"
#include "fleetwatt/topologies/fabrics/torus.hpp"

namespace fleetwatt::topologies {

NetworkPorts build_ring(Topology& topo, std::uint32_t routers, std::uint32_t hosts_per_router,
                        const FabricSpec& fabric) {
  return build_torus(topo, {routers}, hosts_per_router, fabric);
}

FabricKindEntry ring_kind() {
  const TopologyConfig d;
  return {"ring",
          "a ring of routers",
          {params::computed("routers", core::ParamType::integer, "nodes / hosts_per_router", "",
                            "routers in the ring"),
           params::count("hosts_per_router", d.hosts_per_router, "servers per router")},
          [](Topology& topo, const TopologyConfig& c, std::uint32_t nodes) {
            const std::uint32_t routers =
                c.routers != 0 ? c.routers : (nodes + c.hosts_per_router - 1) / c.hosts_per_router;
            return build_ring(topo, std::max<std::uint32_t>(routers, 1), c.hosts_per_router, c.fabric);
          }};
}

}  // namespace fleetwatt::topologies
