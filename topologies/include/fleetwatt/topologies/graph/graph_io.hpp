// Topologies from files and back: GraphML and Graphviz DOT readers (Boost.Graph's parsers) and a DOT writer
// for inspection. Attributes: vertices kind (gpu, nvswitch, pcie_switch, nic, leaf, spine, core, storage),
// name, server (node index; "node" is a DOT keyword; required for GPUs), rack, idle_w, active_w; edges
// bandwidth_gbps (required), latency_us, idle_w, active_w (both ports together); label is accepted and
// ignored.
#pragma once

#include <filesystem>
#include <istream>
#include <ostream>
#include <string>

#include "fleetwatt/topologies/graph/topology.hpp"

namespace fleetwatt::topologies {

/// Reads GraphML; `name` names the source in messages. Throws ConfigError on malformed input.
[[nodiscard]] Topology read_graphml(std::istream& in, const std::string& name);
/// Reads Graphviz DOT (an undirected `graph`); vertex ids are the names.
[[nodiscard]] Topology read_dot(std::istream& in, const std::string& name);
/// Reads a .graphml/.xml or .dot/.gv file and validates it.
[[nodiscard]] Topology read_topology_file(const std::filesystem::path& file);

/// Writes the topology as an undirected DOT graph that read_dot reads back.
void write_dot(const Topology& topo, std::ostream& out);

}  // namespace fleetwatt::topologies
