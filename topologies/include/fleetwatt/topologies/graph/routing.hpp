// Shortest-path routing over the interconnect graph, by hop count or by latency, with equal-cost multipath:
// among equal shortest paths a flow key picks one deterministically, and consecutive keys between the same
// two end points pick different paths (as ECMP hashing spreads flows, without hashing's collisions).
//
// Servers do not forward: a route may cross the internals (GPUs, NVSwitch, PCIe switches, NICs) of its own
// two servers only (leaving the first and entering the second once), and otherwise only network vertices
// (switches, storage, anything without a server index); between two vertices of one server it stays inside
// the server when it can (GPUs talk over NVLink or PCIe, not through their leaf switch). Besides being how
// fabrics are built, this keeps routing cheap at fleet scale: distances to a destination are computed over
// the network and the destination's server only (a few hundred vertices for a thousand-server fat-tree), and
// the source server's side is a small search of its own.
//
// State is shared, not per pair: one table of network distances per network vertex that servers attach to
// (a fat-tree's leaf switches), kept within a memory budget and recomputed when evicted, and per
// destination only its server's few vertices and its exits to the network. Routes are computed on demand;
// only those of pairs with a single shortest path (most of a ring's neighbours: GPUs of one server, servers
// under one switch) are kept, in a memo of bounded size (single_path_memo.hpp), so routing memory grows with
// the fleet's servers, not with GPU pairs or GPUs x switches. Evictions change no result: tables and routes
// are pure functions of the graph.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "fleetwatt/topologies/graph/single_path_memo.hpp"
#include "fleetwatt/topologies/graph/source_side_memo.hpp"
#include "fleetwatt/topologies/graph/topology.hpp"

namespace fleetwatt::topologies {

enum class RouteMetric { latency, hops };

class Router {
 public:
  /// Memory for the shared network tables by default: all of a k = 48 fat-tree's leaf switches (1,152
  /// tables of 2,888 slots, 27 MB) fit; a larger fabric recomputes evicted tables (a Dijkstra each).
  static constexpr std::size_t kDefaultTableBudgetBytes = std::size_t{128} << 20;

  /// `topo` must outlive the router and not change while it is used. `table_budget_bytes` bounds the
  /// cached network tables (at least one is kept per route in progress).
  Router(const Topology& topo, RouteMetric metric, std::size_t table_budget_bytes = kDefaultTableBudgetBytes);

  /// Shortest-path cost from a to b (links, or seconds); +infinity when unreachable.
  [[nodiscard]] double distance(Vertex a, Vertex b);
  /// Number of distinct shortest paths from a to b (as a double: it grows fast in fat-trees).
  [[nodiscard]] double path_count(Vertex a, Vertex b);
  /// A shortest path from a to b as directed links; `flow_key` chooses among equal paths. Empty when a == b.
  /// Throws std::invalid_argument when b cannot be reached.
  [[nodiscard]] std::vector<DirectedLink> path(Vertex a, Vertex b, std::uint64_t flow_key = 0);
  /// The same path, appended to `out` (routes kept in one array, without a block each); returns its
  /// latency (the same number as latency() of it).
  double append_path(Vertex a, Vertex b, std::uint64_t flow_key, std::vector<DirectedLink>& out);
  /// Sum of the links' latencies.
  [[nodiscard]] double latency(std::span<const DirectedLink> path) const;
  /// The vertices a path visits, starting at `from`.
  [[nodiscard]] std::vector<Vertex> vertices(Vertex from, const std::vector<DirectedLink>& path) const;

  /// Network tables cached now, and the most kept between routes.
  [[nodiscard]] std::size_t cached_network_tables() const noexcept { return network_filled_.size(); }
  [[nodiscard]] std::size_t network_table_limit() const noexcept { return network_cache_limit_; }
  /// Source-server searches kept (see SourceSideMemo).
  [[nodiscard]] std::size_t cached_source_sides() const noexcept { return source_sides_.size(); }

  [[nodiscard]] const Topology& topology() const noexcept { return topo_; }
  [[nodiscard]] RouteMetric metric() const noexcept { return metric_; }

 private:
  /// One end of a link as seen from a vertex: the neighbour, the directed link towards it, its latency and
  /// its weight under the metric (one per link, or its latency plus a picosecond), computed once.
  struct Arc {
    std::uint32_t to;
    DirectedLink link;
    double latency_s;
    double weight;
  };
  /// Distances to one destination: inside its own server (by server slot), and the network vertices the
  /// server is linked to with the distance from each to the destination. A network vertex's distance is
  /// the minimum over those exits of its network distance to the exit plus the exit's offset, computed
  /// when asked, so that no per-destination table of the whole network is kept (that grew as GPUs x
  /// switches: 520 MB at 40,000 GPUs on a k = 36 fat-tree).
  struct ToDestination {
    std::span<const std::pair<Vertex, double>> exits;  ///< network vertex, its distance to the destination
    std::span<const double> own;
  };
  /// Where a cached destination's distances sit in the pools (flat arrays: no allocation per destination,
  /// about 140 bytes each for a 13-vertex server). Cached per (server shape, slot): servers with the same
  /// internal links and weights, linked to the network at the same places, have the same distances to
  /// the vertex in a given slot, so one entry serves that slot in every server of a uniform fleet. Exits
  /// are kept by attachment index (the server's n-th network neighbour), mapped to vertices per server.
  struct CachedDestination {
    std::uint32_t key;  ///< index in shape_entry_
    std::uint32_t own_at, own_n, exits_at, exits_n;
  };
  /// A network vertex where routes to one destination leave the network, with its network table.
  struct Exit {
    const double* table;  ///< distances from the exit vertex, by network slot
    double offset;        ///< the exit's own distance to the destination
  };
  /// Distances from every vertex that a route from `src` to `dst` may use.
  class Distances;

  /// A network vertex's arc to another network vertex: the target's network slot and the arc's index.
  struct NetworkArc {
    std::uint32_t slot, arc;
  };
  /// An arc from a network vertex into a server.
  struct ServerEntry {
    Vertex from;
    std::uint32_t arc;
  };

  [[nodiscard]] std::span<const Arc> arcs(Vertex v) const noexcept {
    return {arcs_.data() + arc_begin_[v], arcs_.data() + arc_begin_[v + 1]};
  }
  [[nodiscard]] std::span<const NetworkArc> network_arcs(std::uint32_t slot) const noexcept {
    return {network_arcs_.data() + network_arc_begin_[slot],
            network_arcs_.data() + network_arc_begin_[slot + 1]};
  }
  [[nodiscard]] std::span<const ServerEntry> entries(std::int32_t server) const noexcept {
    const auto s = static_cast<std::size_t>(server);
    return {entries_.data() + entry_begin_[s], entries_.data() + entry_begin_[s + 1]};
  }
  /// Numbers the network vertices' slots breadth-first, so that neighbours' slots lie close together.
  void order_network_slots();
  /// Lists each network vertex's network arcs and each server's entries (see network_arcs_).
  void index_network_arcs();
  /// The next hops from `v` on shortest paths by `d`, in adjacency order, into next_.
  void next_hops(Vertex v, const Distances& d, std::int32_t dst_server, std::int32_t src_server);
  [[nodiscard]] bool on_shortest(double dist_v, double dist_u, double w) const;
  /// Finishes a search seeded in heap_ within one server's vertices, `dist` by server slot.
  void settle_within_server(std::vector<double>& dist, std::int32_t server);
  /// Valid until the next call (the pools may grow; the exits are scratch).
  ToDestination to_destination(Vertex dst);
  /// Groups servers by shape (see CachedDestination), lists each one's network neighbours and marks those
  /// linked directly to another server (links_servers_).
  void find_server_shapes();
  /// Distances from a network vertex to every network vertex (by network slot), over the network only:
  /// one table per vertex that servers attach to (a fat-tree's leaf switches), shared by every route that
  /// enters or leaves the network there; cached within a memory budget (see distances()).
  const double* network_distances(Vertex from);
  [[nodiscard]] Distances distances(Vertex src, Vertex dst);

  const Topology& topo_;
  RouteMetric metric_;
  std::vector<std::int32_t> server_;  ///< per vertex: server index, or -1 for network vertices
  std::vector<std::uint32_t> slot_;   ///< per vertex: index among network vertices or its server's
  std::vector<std::vector<Vertex>> server_vertices_;
  std::size_t network_vertices_ = 0;
  std::size_t network_cache_limit_ = 0;  ///< tables kept at most (a memory budget over their size)
  // Caches indexed directly (by vertex, by network slot) rather than hashed: every route looks up its
  // destination and its exits' tables, and hashing them was a tenth of a fabric-wide run's routing time.
  std::vector<std::uint32_t> shape_of_;      ///< per server: its shape
  std::vector<std::uint32_t> shape_base_;    ///< per shape: its first slot's index in shape_entry_
  std::vector<std::uint32_t> shape_entry_;   ///< per (shape, slot): 1 + its index in destinations_, or 0
  std::vector<std::uint32_t> attach_begin_;  ///< per server: its network neighbours in attach_pool_
  std::vector<Vertex> attach_pool_;          ///< each server's network neighbours, in order of first link
  std::vector<CachedDestination> destinations_;
  std::vector<double> own_pool_;
  std::vector<std::pair<std::uint32_t, double>> exit_pool_;       ///< attachment index, offset
  std::vector<double> dest_own_;                                  ///< scratch of to_destination()
  std::vector<std::pair<std::uint32_t, double>> dest_by_attach_;  ///< scratch of to_destination()
  std::vector<std::pair<Vertex, double>> dest_exits_;  ///< to_destination()'s answer: exits as vertices
  std::vector<std::vector<double>> network_tables_;    ///< per network slot, empty when not cached
  std::vector<std::uint32_t> network_filled_;          ///< slots whose table is cached
  std::vector<std::uint32_t> arc_begin_;  ///< per vertex: its first arc; one more entry at the end
  std::vector<Arc> arcs_;
  // A walk's step at a switch looks only at the arcs that can be on a route: to other network vertices
  // (with the target's slot at hand), and into the route's two servers. A leaf switch's links to the
  // servers below it (72 at k = 36 with 4 NICs each) are skipped instead of each costing a look-up.
  std::vector<std::uint32_t> network_arc_begin_;  ///< per network slot; one more entry at the end
  std::vector<NetworkArc> network_arcs_;
  std::vector<std::uint32_t> entry_begin_;  ///< per server; one more entry at the end
  std::vector<ServerEntry> entries_;
  std::vector<double> scratch_net_, scratch_own_;  ///< the rare same-server route through the network
  // Scratch of one route, reused so that routing allocates nothing per route.
  std::vector<Exit> exits_;
  std::vector<double> local_;
  std::vector<const Arc*> next_;
  std::vector<std::pair<double, Vertex>> heap_;
  SinglePathMemo single_paths_;
  // A source server's distances depend only on its shape and its attachments' distances to the
  // destination, unless it links to other servers directly (then the destination's server seeds it too).
  std::vector<std::uint8_t> links_servers_;  ///< per server: 1 when linked to another server
  std::vector<double> source_key_;           ///< scratch: the attachments' distances of one route
  SourceSideMemo source_sides_;
};

}  // namespace fleetwatt::topologies
