// Shortest-path routing over the interconnect graph, by hop count or by latency, with equal-cost multipath:
// among equal shortest paths a flow key picks one deterministically, and consecutive keys between the same
// two end points pick different paths (as ECMP hashing spreads flows, without hashing's collisions).
//
// Servers do not forward: a route may cross the internals (GPUs, NVSwitch, PCIe switches, NICs) of its own
// two servers only, and otherwise only network vertices (switches, storage, anything without a server
// index). Besides being how fabrics are built, this keeps routing cheap at fleet scale: distances to a
// destination are computed over the network and the destination's server only (a few hundred vertices for
// a thousand-server fat-tree), and the source server's side is a small search of its own.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "fleetwatt/topologies/topology.hpp"

namespace fleetwatt::topologies {

enum class RouteMetric { latency, hops };

class Router {
 public:
  /// `topo` must outlive the router and not change while it is used.
  Router(const Topology& topo, RouteMetric metric);

  /// Shortest-path cost from a to b (links, or seconds); +infinity when unreachable.
  [[nodiscard]] double distance(Vertex a, Vertex b);
  /// Number of distinct shortest paths from a to b (as a double: it grows fast in fat-trees).
  [[nodiscard]] double path_count(Vertex a, Vertex b);
  /// A shortest path from a to b as directed links; `flow_key` chooses among equal paths. Empty when a == b.
  /// Throws std::invalid_argument when b cannot be reached.
  [[nodiscard]] std::vector<DirectedLink> path(Vertex a, Vertex b, std::uint64_t flow_key = 0);
  /// Sum of the links' latencies.
  [[nodiscard]] double latency(const std::vector<DirectedLink>& path) const;
  /// The vertices a path visits, starting at `from`.
  [[nodiscard]] std::vector<Vertex> vertices(Vertex from, const std::vector<DirectedLink>& path) const;

  [[nodiscard]] const Topology& topology() const noexcept { return topo_; }
  [[nodiscard]] RouteMetric metric() const noexcept { return metric_; }

 private:
  /// Distances to one destination: over network vertices (by network slot) and its own server's vertices.
  struct ToDestination {
    std::vector<double> net;
    std::vector<double> own;
  };
  /// Distances from every vertex that a route from `src` to `dst` may use.
  class Distances;

  [[nodiscard]] double weight(const Edge& e) const;
  [[nodiscard]] bool on_shortest(double dist_v, double dist_u, double w) const;
  const ToDestination& to_destination(Vertex dst);
  [[nodiscard]] Distances distances(Vertex src, Vertex dst);

  const Topology& topo_;
  RouteMetric metric_;
  std::vector<std::int32_t> server_;  ///< per vertex: server index, or -1 for network vertices
  std::vector<std::uint32_t> slot_;   ///< per vertex: index among network vertices or its server's
  std::vector<std::vector<Vertex>> server_vertices_;
  std::size_t network_vertices_ = 0;
  std::unordered_map<Vertex, ToDestination> cache_;
};

}  // namespace fleetwatt::topologies
