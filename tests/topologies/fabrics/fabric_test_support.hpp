// What the fabric kinds' tests share: switch counts, NIC lists and a one-GPU-per-server [topology].
#pragma once

#include <string>
#include <vector>

#include "fleetwatt/topologies/fabrics/topology_config.hpp"
#include "fleetwatt/topologies/graph/analysis.hpp"
#include "fleetwatt/topologies/graph/routing.hpp"

namespace fleetwatt::topologies::test {

inline std::size_t switches(const Topology& t) {
  return t.count(VertexKind::leaf) + t.count(VertexKind::spine) + t.count(VertexKind::core);
}

/// NIC vertices of the given nodes (one NIC each in these tests).
inline std::vector<Vertex> nics(const Topology& t, std::uint32_t first, std::uint32_t last) {
  std::vector<Vertex> out;
  for (std::uint32_t n = first; n < last; ++n)
    for (const Vertex v : t.nics_of(n)) out.push_back(v);
  return out;
}

/// A [topology] of `kind` without storage.
inline TopologyConfig one_gpu_nodes(std::string kind) {
  TopologyConfig c;
  c.kind = std::move(kind);
  c.storage.servers = 0;
  return c;
}

}  // namespace fleetwatt::topologies::test
