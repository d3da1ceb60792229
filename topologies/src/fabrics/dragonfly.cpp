// The dragonfly fabric kind (fabrics/dragonfly.hpp).
#include "fleetwatt/topologies/fabrics/dragonfly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fabric_params.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"

namespace fleetwatt::topologies {

NetworkPorts build_dragonfly(Topology& topo, std::uint32_t groups, std::uint32_t routers,
                             std::uint32_t hosts_per_router, std::uint32_t global_links,
                             const FabricSpec& fabric) {
  if (groups == 0 || routers == 0 || hosts_per_router == 0)
    throw std::invalid_argument("dragonfly needs at least one group, router and host per router");
  if (groups > 1 && global_links == 0)
    throw std::invalid_argument("dragonfly with several groups needs global links");
  NetworkPorts ports;
  std::vector<std::vector<Vertex>> r(groups);
  for (std::uint32_t g = 0; g < groups; ++g) {
    for (std::uint32_t i = 0; i < routers; ++i) {
      r[g].push_back(add_switch(topo, VertexKind::leaf, fmt::format("g{}.r{}", g, i),
                                static_cast<std::int32_t>(g * routers + i), fabric.switch_idle_W));
      for (std::uint32_t h = 0; h < hosts_per_router; ++h) ports.host_ports.push_back(r[g].back());
    }
    for (std::uint32_t i = 0; i < routers; ++i)
      for (std::uint32_t j = i + 1; j < routers; ++j) topo.add_link(r[g][i], r[g][j], fabric.link);
    ports.storage_ports.push_back(r[g][0]);
  }
  // Global port q of group g (router q / global_links) goes to group (g + 1 + q) mod groups: with
  // groups = routers * global_links + 1 every pair of groups gets exactly one link, as in the canonical
  // dragonfly. Each unordered pair is linked once per port that names it from the lower group.
  if (groups > 1) {
    const std::uint32_t gports = routers * global_links;
    for (std::uint32_t g = 0; g < groups; ++g) {
      for (std::uint32_t q = 0; q < gports; ++q) {
        const std::uint32_t t = (g + 1 + q % (groups - 1)) % groups;
        // The peer port of (g, q) at group t is the one whose offset points back at g.
        const std::uint32_t back = (g + groups - t - 1) % groups;  // offset from t to g, minus one
        const std::uint32_t peer_q = back + (q / (groups - 1)) * (groups - 1);
        if (peer_q >= gports) continue;  // no matching port: unused global port
        if (g < t) topo.add_link(r[g][q / global_links], r[t][peer_q / global_links], fabric.link);
      }
    }
  }
  return ports;
}

namespace {
/// The groups given, or the fewest that hold the fleet (at least one).
std::uint32_t groups_for(const TopologyConfig& c, std::uint32_t nodes) {
  if (c.groups != 0) return c.groups;
  const std::uint64_t per_group = std::uint64_t{c.routers_per_group} * c.hosts_per_router;
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (nodes + per_group - 1) / per_group));
}
}  // namespace

FabricKindEntry dragonfly_kind() {
  const TopologyConfig d;
  return {"dragonfly",
          "groups of routers, all-to-all inside, global links between",
          {params::computed("groups", core::ParamType::integer, "smallest that fits", "", "router groups"),
           params::count("routers_per_group", d.routers_per_group, "routers in a group"),
           params::count("global_links_per_router", d.global_links, "links to other groups per router"),
           params::count("hosts_per_router", d.hosts_per_router, "servers per router")},
          {[](Topology& topo, const TopologyConfig& c, std::uint32_t nodes) {
             return build_dragonfly(topo, groups_for(c, nodes), c.routers_per_group, c.hosts_per_router,
                                    c.global_links, c.fabric);
           },
           [](const TopologyConfig& c, std::uint32_t nodes) {
             // All-to-all inside each group; each global link takes a global port at both ends, so there
             // are at most half as many as ports (exactly that many in the canonical dragonfly).
             const double groups = groups_for(c, nodes), routers = c.routers_per_group;
             const double local = groups * routers * (routers - 1) / 2;
             const double global = groups > 1 ? groups * routers * c.global_links / 2 : 0.0;
             return FabricSize{groups * routers, local + global, groups * routers * c.hosts_per_router,
                               c.groups != 0 ? "groups" : "routers_per_group"};
           }}};
}

}  // namespace fleetwatt::topologies
