// The fat-tree fabric kind (fabrics/fat_tree.hpp).
#include "fleetwatt/topologies/fabrics/fat_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fabric_params.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"

namespace fleetwatt::topologies {

std::uint32_t smallest_fat_tree_k(std::uint32_t nodes) {
  std::uint32_t k = 2;
  while (static_cast<std::uint64_t>(k) * k * k / 4 < nodes) k += 2;
  return k;
}

NetworkPorts build_fat_tree(Topology& topo, std::uint32_t k, const FabricSpec& fabric) {
  if (k < 2 || k % 2 != 0)
    throw std::invalid_argument(fmt::format("fat-tree k must be even and >= 2, got {}", k));
  const std::uint32_t half = k / 2;
  NetworkPorts ports;
  std::vector<Vertex> core;
  for (std::uint32_t c = 0; c < half * half; ++c)
    core.push_back(add_switch(topo, VertexKind::core, fmt::format("core{}", c), -1, fabric.switch_idle_W));
  for (std::uint32_t pod = 0; pod < k; ++pod) {
    std::vector<Vertex> agg, edge;
    for (std::uint32_t i = 0; i < half; ++i)
      agg.push_back(
          add_switch(topo, VertexKind::spine, fmt::format("pod{}.agg{}", pod, i), -1, fabric.switch_idle_W));
    for (std::uint32_t i = 0; i < half; ++i) {
      const auto rack = static_cast<std::int32_t>(pod * half + i);
      edge.push_back(add_switch(topo, VertexKind::leaf, fmt::format("pod{}.edge{}", pod, i), rack,
                                fabric.switch_idle_W));
      for (const Vertex a : agg) topo.add_link(edge.back(), a, fabric.link);
      for (std::uint32_t h = 0; h < half; ++h) ports.host_ports.push_back(edge.back());
    }
    // Aggregation switch i of every pod links to core switches i*k/2 .. i*k/2 + k/2 - 1.
    for (std::uint32_t i = 0; i < half; ++i)
      for (std::uint32_t j = 0; j < half; ++j) topo.add_link(agg[i], core[i * half + j], fabric.link);
  }
  ports.storage_ports = core;
  return ports;
}

FabricKindEntry fat_tree_kind() {
  return {"fat_tree",
          "k-ary fat-tree: k^3/4 servers, 5k^2/4 switches",
          {params::computed("k", core::ParamType::integer, "smallest that fits", "", "switch radix (even)")},
          {[](Topology& topo, const TopologyConfig& c, std::uint32_t nodes) {
             return build_fat_tree(topo, c.k != 0 ? c.k : smallest_fat_tree_k(nodes), c.fabric);
           },
           [](const TopologyConfig& c, std::uint32_t nodes) {
             // k^2/4 core, k^2/2 aggregation and k^2/2 edge switches; k^3/4 edge-aggregation and as many
             // aggregation-core links; k/2 servers on each edge switch.
             const double k = c.k != 0 ? c.k : smallest_fat_tree_k(nodes);
             return FabricSize{1.25 * k * k, 0.5 * k * k * k, 0.25 * k * k * k, "k"};
           }}};
}

}  // namespace fleetwatt::topologies
