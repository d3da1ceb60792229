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

namespace {
/// The routers given, or the fewest that hold the fleet (at least one).
std::uint32_t routers_for(const TopologyConfig& c, std::uint32_t nodes) {
  if (c.routers != 0) return c.routers;
  const auto fewest = (std::uint64_t{nodes} + c.hosts_per_router - 1) / c.hosts_per_router;
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(fewest, 1));
}
}  // namespace

FabricKindEntry ring_kind() {
  const TopologyConfig d;
  return {"ring",
          "a ring of routers",
          {params::computed("routers", core::ParamType::integer, "nodes / hosts_per_router", "",
                            "routers in the ring"),
           params::count("hosts_per_router", d.hosts_per_router, "servers per router")},
          {[](Topology& topo, const TopologyConfig& c, std::uint32_t nodes) {
             return build_ring(topo, routers_for(c, nodes), c.hosts_per_router, c.fabric);
           },
           [](const TopologyConfig& c, std::uint32_t nodes) {
             return torus_size({routers_for(c, nodes)}, c.hosts_per_router, "routers");
           }}};
}

}  // namespace fleetwatt::topologies
