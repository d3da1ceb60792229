// What every topology is built from: a GPU server (NVSwitch or PCIe), switches, the fabric's common link
// and switch figures, the ports servers and storage attach to, and storage. The fabric kinds (fat-tree,
// leaf-spine, dragonfly, torus, ring) are in fabrics/, one header each (fabric_kinds.hpp lists them).
// Scenarios describe generators, not elements; these functions build the elements.
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "fleetwatt/topologies/graph/topology.hpp"

namespace fleetwatt::topologies {

enum class NodeFabric { nvswitch, pcie };

/// One GPU server. Bandwidths are bytes/s per direction.
struct NodeSpec {
  std::uint32_t gpus = 4;
  NodeFabric fabric = NodeFabric::nvswitch;
  std::uint32_t nics = 1;
  LinkSpec nvlink{300e9, 1e-6, 0.0, 0.0};    ///< per GPU to the NVSwitch (A100: 600 GB/s both ways)
  LinkSpec pcie{32e9, 2e-6, 0.0, 0.0};       ///< PCIe 4.0 x16 per direction, GPU/NIC to a PCIe switch
  LinkSpec pcie_root{64e9, 2e-6, 0.0, 0.0};  ///< PCIe switch to the host root complex (PCIe variant)
  double nic_idle_W = 15.0;                  ///< a 200-400 Gb/s NIC at rest
  double nic_active_W = 8.0;                 ///< extra while it carries traffic
  double nvswitch_idle_W = 0.0;              ///< counted in node base power by default
};

/// Vertices of one built server.
struct NodeVertices {
  std::vector<Vertex> gpus;
  std::vector<Vertex> nics;
};

/// Adds server `node` to `topo`.
NodeVertices build_node(Topology& topo, std::uint32_t node, const NodeSpec& spec);

/// Adds a switch (or router) of `kind` in `rack` (-1: none) drawing idle_W always.
Vertex add_switch(Topology& topo, VertexKind kind, std::string name, std::int32_t rack, double idle_W);

/// Common parameters of a network fabric's switches and links.
struct FabricSpec {
  LinkSpec link{50e9, 1e-6, 20.0, 26.0};  ///< switch-to-switch link (400 Gb/s; two ports' power)
  double switch_idle_W = 250.0;           ///< chassis, fans, ASIC static power per switch
};

/// Where servers and storage attach to a built fabric.
struct NetworkPorts {
  std::vector<Vertex> host_ports;     ///< one entry per host slot: the switch a server's NICs link to
  std::vector<Vertex> storage_ports;  ///< switches storage servers link to (round robin)
};

/// Shared storage: servers that every GPU can read from and write to.
struct StorageSpec {
  std::uint32_t servers = 4;
  LinkSpec link{50e9, 5e-6, 20.0, 26.0};  ///< each server's link into the fabric = its deliverable bandwidth
  double server_idle_W = 400.0;
};

/// Adds storage servers linked round-robin to the fabric's storage ports.
std::vector<Vertex> attach_storage(Topology& topo, const NetworkPorts& ports, const StorageSpec& storage);

/// Links server `node`'s NICs to host slot `slot`; `nic_link` is the NIC-to-switch link.
void attach_node(Topology& topo, const NodeVertices& node, Vertex host_port, const LinkSpec& nic_link);

}  // namespace fleetwatt::topologies
