// Shortest paths to a destination over the network and the end points' servers (Dijkstra on a binary heap;
// unit weights for hops), cached per destination, and ECMP path choice by walking the shortest-path DAG.
#include "fleetwatt/topologies/routing.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>

#include <fmt/format.h>

namespace fleetwatt::topologies {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// Every link costs at least one picosecond under the latency metric, so zero-latency links cannot form
// zero-cost cycles and, among equal latencies, fewer hops win.
constexpr double kHopTieBreak_s = 1e-12;
constexpr std::size_t kCacheLimit = 1 << 16;
constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

std::uint64_t mix(std::uint64_t x) {
  // splitmix64 finaliser: spreads end-point pairs over the equal paths.
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

using HeapEntry = std::pair<double, Vertex>;
using MinHeap = std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>>;
}  // namespace

/// Distance lookup for one (source, destination) pair: network and destination-server vertices from the
/// cached table, source-server vertices from a search of that server alone, other servers unreachable.
class Router::Distances {
 public:
  Distances(const Router& r, const ToDestination& to, std::int32_t dst_server, std::int32_t src_server,
            std::vector<double> local)
      : r_(r), to_(to), dst_server_(dst_server), src_server_(src_server), local_(std::move(local)) {}

  double operator()(Vertex v) const {
    const std::int32_t s = r_.server_[v];
    if (s < 0) return to_.net[r_.slot_[v]];
    if (s == dst_server_) return to_.own[r_.slot_[v]];
    if (s == src_server_) return local_[r_.slot_[v]];
    return kInf;
  }

 private:
  const Router& r_;
  const ToDestination& to_;
  std::int32_t dst_server_, src_server_;
  std::vector<double> local_;
};

Router::Router(const Topology& topo, RouteMetric metric) : topo_(topo), metric_(metric) {
  const Graph& g = topo_.graph();
  const auto n = boost::num_vertices(g);
  server_.resize(n);
  slot_.resize(n, kNoSlot);
  for (Vertex v = 0; v < n; ++v) {
    const std::int32_t s = g[v].node;
    server_[v] = s;
    if (s < 0) {
      slot_[v] = static_cast<std::uint32_t>(network_vertices_++);
    } else {
      if (server_vertices_.size() <= static_cast<std::size_t>(s))
        server_vertices_.resize(static_cast<std::size_t>(s) + 1);
      auto& list = server_vertices_[static_cast<std::size_t>(s)];
      slot_[v] = static_cast<std::uint32_t>(list.size());
      list.push_back(v);
    }
  }
}

double Router::weight(const Edge& e) const {
  return metric_ == RouteMetric::hops ? 1.0 : topo_.link(topo_.graph()[e].id).latency_s + kHopTieBreak_s;
}

bool Router::on_shortest(double dist_v, double dist_u, double w) const {
  if (metric_ == RouteMetric::hops) return dist_u + w == dist_v;
  return std::abs(dist_u + w - dist_v) <= 1e-9 * kHopTieBreak_s + 1e-12 * dist_v;
}

const Router::ToDestination& Router::to_destination(Vertex dst) {
  const auto it = cache_.find(dst);
  if (it != cache_.end()) return it->second;
  if (cache_.size() >= kCacheLimit) cache_.clear();
  const Graph& g = topo_.graph();
  const std::int32_t ds = server_[dst];
  ToDestination to;
  to.net.assign(network_vertices_, kInf);
  if (ds >= 0) to.own.assign(server_vertices_[static_cast<std::size_t>(ds)].size(), kInf);
  // Dijkstra from the destination over the network and the destination's own server.
  const auto dist = [&](Vertex v) -> double* {
    const std::int32_t s = server_[v];
    if (s < 0) return &to.net[slot_[v]];
    if (s == ds) return &to.own[slot_[v]];
    return nullptr;
  };
  MinHeap heap;
  *dist(dst) = 0.0;
  heap.emplace(0.0, dst);
  while (!heap.empty()) {
    const auto [d, v] = heap.top();
    heap.pop();
    if (d > *dist(v)) continue;
    for (const Edge& e : boost::make_iterator_range(boost::out_edges(v, g))) {
      const Vertex u = boost::target(e, g);
      double* du = dist(u);
      if (du == nullptr) continue;
      const double nd = d + weight(e);
      if (nd < *du) {
        *du = nd;
        heap.emplace(nd, u);
      }
    }
  }
  return cache_.emplace(dst, std::move(to)).first->second;
}

Router::Distances Router::distances(Vertex src, Vertex dst) {
  const ToDestination& to = to_destination(dst);
  const std::int32_t ds = server_[dst], ss = server_[src];
  std::vector<double> local;
  if (ss >= 0 && ss != ds) {
    // The source server's side: seeded from its links to the network and to the destination's server,
    // then searched within the server.
    const Graph& g = topo_.graph();
    const auto& members = server_vertices_[static_cast<std::size_t>(ss)];
    local.assign(members.size(), kInf);
    MinHeap heap;
    for (const Vertex u : members) {
      for (const Edge& e : boost::make_iterator_range(boost::out_edges(u, g))) {
        const Vertex x = boost::target(e, g);
        const std::int32_t xs = server_[x];
        double dx = kInf;
        if (xs < 0) dx = to.net[slot_[x]];
        if (xs >= 0 && xs == ds) dx = to.own[slot_[x]];
        if (dx + weight(e) < local[slot_[u]]) local[slot_[u]] = dx + weight(e);
      }
      if (local[slot_[u]] < kInf) heap.emplace(local[slot_[u]], u);
    }
    while (!heap.empty()) {
      const auto [d, v] = heap.top();
      heap.pop();
      if (d > local[slot_[v]]) continue;
      for (const Edge& e : boost::make_iterator_range(boost::out_edges(v, g))) {
        const Vertex u = boost::target(e, g);
        if (server_[u] != ss) continue;
        const double nd = d + weight(e);
        if (nd < local[slot_[u]]) {
          local[slot_[u]] = nd;
          heap.emplace(nd, u);
        }
      }
    }
  }
  return Distances(*this, to, ds, ss, std::move(local));
}

double Router::distance(Vertex a, Vertex b) {
  return distances(a, b)(a);
}

double Router::path_count(Vertex a, Vertex b) {
  const Distances d = distances(a, b);
  if (d(a) == kInf) return 0.0;
  const Graph& g = topo_.graph();
  std::unordered_map<Vertex, double> memo;
  std::function<double(Vertex)> count = [&](Vertex v) -> double {
    if (v == b) return 1.0;
    if (const auto it = memo.find(v); it != memo.end()) return it->second;
    double n = 0.0;
    for (const Edge& e : boost::make_iterator_range(boost::out_edges(v, g))) {
      const Vertex u = boost::target(e, g);
      if (on_shortest(d(v), d(u), weight(e))) n += count(u);
    }
    memo.emplace(v, n);
    return n;
  };
  return count(a);
}

std::vector<DirectedLink> Router::path(Vertex a, Vertex b, std::uint64_t flow_key) {
  const Distances d = distances(a, b);
  if (d(a) == kInf)
    throw std::invalid_argument(
        fmt::format("no route from {} to {}", topo_.vertex(a).name, topo_.vertex(b).name));
  const Graph& g = topo_.graph();
  // Mixed-radix walk: at each branch point with n equal next hops, take key % n and divide the key by n, so
  // consecutive keys differ at the first branch point (paths spread evenly, deterministically).
  std::uint64_t key = mix((static_cast<std::uint64_t>(a) << 32) ^ b) + flow_key;
  std::vector<DirectedLink> out;
  std::vector<Edge> next;
  Vertex v = a;
  while (v != b) {
    next.clear();
    const double dv = d(v);
    for (const Edge& e : boost::make_iterator_range(boost::out_edges(v, g)))
      if (on_shortest(dv, d(boost::target(e, g)), weight(e))) next.push_back(e);
    if (next.empty()) throw std::logic_error("shortest-path walk found no next hop");
    const Edge& e = next[key % next.size()];
    key /= next.size();
    out.push_back(topo_.directed(g[e].id, v));
    v = boost::target(e, g);
  }
  return out;
}

double Router::latency(const std::vector<DirectedLink>& path) const {
  double s = 0.0;
  for (const DirectedLink l : path) s += topo_.link(l / 2).latency_s;
  return s;
}

std::vector<Vertex> Router::vertices(Vertex from, const std::vector<DirectedLink>& path) const {
  std::vector<Vertex> out{from};
  for (const DirectedLink l : path) {
    const auto [a, b] = topo_.link_ends(l / 2);
    out.push_back(l % 2 == 0 ? b : a);
  }
  return out;
}

}  // namespace fleetwatt::topologies
