// The leaf-spine fabric kind (fabrics/leaf_spine.hpp).
#include "fleetwatt/topologies/fabrics/leaf_spine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fabric_params.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"

namespace fleetwatt::topologies {

NetworkPorts build_leaf_spine(Topology& topo, std::uint32_t leaves, std::uint32_t spines,
                              std::uint32_t hosts_per_leaf, double host_Bps, double oversubscription,
                              const FabricSpec& fabric) {
  if (leaves == 0 || spines == 0 || hosts_per_leaf == 0)
    throw std::invalid_argument("leaf-spine needs at least one leaf, spine and host per leaf");
  if (!(oversubscription > 0.0)) throw std::invalid_argument("oversubscription must be positive");
  NetworkPorts ports;
  std::vector<Vertex> spine;
  for (std::uint32_t s = 0; s < spines; ++s)
    spine.push_back(add_switch(topo, VertexKind::spine, fmt::format("spine{}", s), -1, fabric.switch_idle_W));
  LinkSpec up = fabric.link;
  up.bandwidth_Bps = hosts_per_leaf * host_Bps / (oversubscription * spines);
  for (std::uint32_t l = 0; l < leaves; ++l) {
    const Vertex leaf = add_switch(topo, VertexKind::leaf, fmt::format("leaf{}", l),
                                   static_cast<std::int32_t>(l), fabric.switch_idle_W);
    for (const Vertex s : spine) topo.add_link(leaf, s, up);
    for (std::uint32_t h = 0; h < hosts_per_leaf; ++h) ports.host_ports.push_back(leaf);
  }
  ports.storage_ports = spine;
  return ports;
}

namespace {
/// The leaves given, or the fewest that hold the fleet.
std::uint32_t leaves_for(const TopologyConfig& c, std::uint32_t nodes) {
  if (c.leaves != 0) return c.leaves;
  return static_cast<std::uint32_t>((std::uint64_t{nodes} + c.hosts_per_leaf - 1) / c.hosts_per_leaf);
}
}  // namespace

FabricKindEntry leaf_spine_kind() {
  const TopologyConfig d;
  return {
      "leaf_spine",
      "two tiers: every leaf linked to every spine",
      {params::computed("leaves", core::ParamType::integer, "nodes / hosts_per_leaf", "", "leaf switches"),
       params::count("spines", d.spines, "spine switches"),
       params::count("hosts_per_leaf", d.hosts_per_leaf, "servers per leaf"),
       params::num("oversubscription", d.oversubscription, "",
                   "leaf uplink = hosts_per_leaf x NIC bandwidth / oversubscription")},
      {[](Topology& topo, const TopologyConfig& c, std::uint32_t nodes) {
         return build_leaf_spine(topo, leaves_for(c, nodes), c.spines, c.hosts_per_leaf,
                                 c.nic_link.bandwidth_Bps * c.node.nics, c.oversubscription, c.fabric);
       },
       [](const TopologyConfig& c, std::uint32_t nodes) {
         const double leaves = leaves_for(c, nodes);
         return FabricSize{leaves + c.spines, leaves * c.spines, leaves * c.hosts_per_leaf,
                           c.leaves != 0 ? "leaves" : "spines"};
       }}};
}

}  // namespace fleetwatt::topologies
