// What every topology is built from: GPU servers, switches and storage (the fabric kinds themselves are
// in fabrics/, one file each).
#include "fleetwatt/topologies/graph/builders.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace fleetwatt::topologies {

Vertex add_switch(Topology& topo, VertexKind kind, std::string name, std::int32_t rack, double idle_W) {
  VertexProps p;
  p.kind = kind;
  p.name = std::move(name);
  p.rack = rack;
  p.idle_W = idle_W;
  return topo.add_vertex(std::move(p));
}

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
