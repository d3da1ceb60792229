// Whole-graph measures: maximum flow between vertex sets (Boost's push-relabel) and bisection bandwidth,
// used to check builders against their closed forms and to describe a fleet's fabric.
#pragma once

#include <vector>

#include "fleetwatt/topologies/graph/topology.hpp"

namespace fleetwatt::topologies {

/// Maximum rate (bytes/s) from the `sources` together to the `sinks` together, every link full-duplex.
[[nodiscard]] double max_flow_Bps(const Topology& topo, const std::vector<Vertex>& sources,
                                  const std::vector<Vertex>& sinks);

/// Bisection bandwidth across the given cut: the maximum flow from half A to half B (bytes/s, one way).
[[nodiscard]] inline double bisection_bandwidth_Bps(const Topology& topo, const std::vector<Vertex>& half_a,
                                                    const std::vector<Vertex>& half_b) {
  return max_flow_Bps(topo, half_a, half_b);
}

}  // namespace fleetwatt::topologies
