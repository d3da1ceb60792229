// Topology generators: servers, fabrics and storage.
#include "fleetwatt/topologies/builders.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace fleetwatt::topologies {

namespace {

Vertex add_switch(Topology& topo, VertexKind kind, std::string name, std::int32_t rack, double idle_W) {
  VertexProps p;
  p.kind = kind;
  p.name = std::move(name);
  p.rack = rack;
  p.idle_W = idle_W;
  return topo.add_vertex(std::move(p));
}

}  // namespace

NodeVertices build_node(Topology& topo, std::uint32_t node, const NodeSpec& spec) {
  if (spec.gpus == 0) throw std::invalid_argument("a node needs at least one GPU");
  const auto n = static_cast<std::int32_t>(node);
  const auto add = [&](VertexKind kind, std::string name, double idle_W = 0.0, double active_W = 0.0) {
    VertexProps p;
    p.kind = kind;
    p.name = fmt::format("n{}.{}", node, name);
    p.node = n;
    p.idle_W = idle_W;
    p.active_W = active_W;
    return topo.add_vertex(std::move(p));
  };
  NodeVertices out;
  for (std::uint32_t g = 0; g < spec.gpus; ++g)
    out.gpus.push_back(add(VertexKind::gpu, fmt::format("gpu{}", g)));
  const std::uint32_t nics = std::max<std::uint32_t>(spec.nics, 1);
  for (std::uint32_t j = 0; j < nics; ++j)
    out.nics.push_back(add(VertexKind::nic, fmt::format("nic{}", j), spec.nic_idle_W, spec.nic_active_W));

  if (spec.fabric == NodeFabric::nvswitch) {
    // GPUs reach each other over the NVSwitch crossbar and the network over a PCIe switch shared with a NIC
    // (GPUDirect RDMA), as on HGX boards.
    const Vertex nvs = add(VertexKind::nvswitch, "nvswitch", spec.nvswitch_idle_W);
    std::vector<Vertex> pcie;
    for (std::uint32_t j = 0; j < nics; ++j)
      pcie.push_back(add(VertexKind::pcie_switch, fmt::format("pcie{}", j)));
    for (std::uint32_t g = 0; g < spec.gpus; ++g) {
      topo.add_link(out.gpus[g], nvs, spec.nvlink);
      topo.add_link(out.gpus[g], pcie[g * nics / spec.gpus], spec.pcie);
    }
    for (std::uint32_t j = 0; j < nics; ++j) topo.add_link(out.nics[j], pcie[j], spec.pcie);
  } else {
    // Two GPUs per PCIe switch; switches meet at the host's root complex, which GPU-to-GPU traffic between
    // switches must cross.
    const std::uint32_t switches = (spec.gpus + 1) / 2;
    const Vertex root = add(VertexKind::pcie_switch, "root");
    std::vector<Vertex> pcie;
    for (std::uint32_t s = 0; s < switches; ++s) {
      pcie.push_back(add(VertexKind::pcie_switch, fmt::format("pcie{}", s)));
      topo.add_link(pcie.back(), root, spec.pcie_root);
    }
    for (std::uint32_t g = 0; g < spec.gpus; ++g) topo.add_link(out.gpus[g], pcie[g / 2], spec.pcie);
    for (std::uint32_t j = 0; j < nics; ++j) topo.add_link(out.nics[j], pcie[j % switches], spec.pcie);
  }
  return out;
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

NetworkPorts build_torus(Topology& topo, const std::vector<std::uint32_t>& dims,
                         std::uint32_t hosts_per_router, const FabricSpec& fabric) {
  if (dims.empty() || dims.size() > 3) throw std::invalid_argument("a torus has 1 to 3 dimensions");
  for (const auto d : dims)
    if (d == 0) throw std::invalid_argument("torus dimensions must be positive");
  if (hosts_per_router == 0) throw std::invalid_argument("hosts_per_router must be positive");
  std::uint32_t total = 1;
  for (const auto d : dims) total *= d;
  NetworkPorts ports;
  std::vector<Vertex> router(total);
  for (std::uint32_t i = 0; i < total; ++i) {
    router[i] = add_switch(topo, VertexKind::leaf, fmt::format("r{}", i), static_cast<std::int32_t>(i),
                           fabric.switch_idle_W);
    for (std::uint32_t h = 0; h < hosts_per_router; ++h) ports.host_ports.push_back(router[i]);
  }
  // Router index = x + dims[0] * (y + dims[1] * z); link each router to its +1 neighbour in every
  // dimension, wrapping around. A dimension of size 2 gets one link (not two parallel ones), size 1 none.
  std::uint32_t stride = 1;
  for (const auto d : dims) {
    for (std::uint32_t i = 0; i < total; ++i) {
      const std::uint32_t c = (i / stride) % d;
      if (d == 1 || (d == 2 && c == 1)) continue;
      const std::uint32_t next = i - c * stride + ((c + 1) % d) * stride;
      topo.add_link(router[i], router[next], fabric.link);
    }
    stride *= d;
  }
  ports.storage_ports.push_back(router[0]);
  return ports;
}

NetworkPorts build_ring(Topology& topo, std::uint32_t routers, std::uint32_t hosts_per_router,
                        const FabricSpec& fabric) {
  return build_torus(topo, {routers}, hosts_per_router, fabric);
}

std::vector<Vertex> attach_storage(Topology& topo, const NetworkPorts& ports, const StorageSpec& storage) {
  if (ports.storage_ports.empty()) throw std::invalid_argument("the fabric has no storage ports");
  std::vector<Vertex> out;
  for (std::uint32_t s = 0; s < storage.servers; ++s) {
    VertexProps p;
    p.kind = VertexKind::storage;
    p.name = fmt::format("storage{}", s);
    p.idle_W = storage.server_idle_W;
    out.push_back(topo.add_vertex(std::move(p)));
    topo.add_link(out.back(), ports.storage_ports[s % ports.storage_ports.size()], storage.link);
  }
  return out;
}

void attach_node(Topology& topo, const NodeVertices& node, Vertex host_port, const LinkSpec& nic_link) {
  for (const Vertex nic : node.nics) topo.add_link(nic, host_port, nic_link);
}

}  // namespace fleetwatt::topologies
