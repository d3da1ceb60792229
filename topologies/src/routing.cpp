// Shortest paths to a destination (Boost BFS for hops, Dijkstra for latency), cached per destination, and
// ECMP path choice by walking the shortest-path DAG.
#include "fleetwatt/topologies/routing.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/property_map/function_property_map.hpp>

namespace fleetwatt::topologies {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// Every link costs at least one picosecond under the latency metric, so zero-latency links cannot form
// zero-cost cycles and, among equal latencies, fewer hops win.
constexpr double kHopTieBreak_s = 1e-12;
constexpr std::size_t kCacheLimit = 2048;

std::uint64_t mix(std::uint64_t x) {
  // splitmix64 finaliser: spreads end-point pairs over the equal paths.
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

Router::Router(const Topology& topo, RouteMetric metric) : topo_(topo), metric_(metric) {}

double Router::weight(const Edge& e) const {
  return metric_ == RouteMetric::hops ? 1.0 : topo_.link(topo_.graph()[e].id).latency_s + kHopTieBreak_s;
}

bool Router::on_shortest(double dist_v, double dist_u, double w) const {
  if (metric_ == RouteMetric::hops) return dist_u + w == dist_v;
  return std::abs(dist_u + w - dist_v) <= 1e-9 * kHopTieBreak_s + 1e-12 * dist_v;
}

const std::vector<double>& Router::distances_to(Vertex dst) {
  const auto it = cache_.find(dst);
  if (it != cache_.end()) return it->second;
  if (cache_.size() >= kCacheLimit) cache_.clear();
  const Graph& g = topo_.graph();
  std::vector<double> dist(boost::num_vertices(g), kInf);
  dist[dst] = 0.0;
  if (metric_ == RouteMetric::hops) {
    struct Recorder : boost::default_bfs_visitor {
      std::vector<double>* d;
      void tree_edge(const Edge& e, const Graph& gr) const {
        (*d)[boost::target(e, gr)] = (*d)[boost::source(e, gr)] + 1.0;
      }
    } rec;
    rec.d = &dist;
    boost::breadth_first_search(g, dst, boost::visitor(rec));
  } else {
    const auto w = boost::make_function_property_map<Edge>([this](const Edge& e) { return weight(e); });
    boost::dijkstra_shortest_paths(g, dst, boost::weight_map(w).distance_map(dist.data()).distance_inf(kInf));
  }
  return cache_.emplace(dst, std::move(dist)).first->second;
}

double Router::distance(Vertex a, Vertex b) {
  return distances_to(b)[a];
}

double Router::path_count(Vertex a, Vertex b) {
  const auto& d = distances_to(b);
  if (d[a] == kInf) return 0.0;
  const Graph& g = topo_.graph();
  std::unordered_map<Vertex, double> memo;
  std::function<double(Vertex)> count = [&](Vertex v) -> double {
    if (v == b) return 1.0;
    if (const auto it = memo.find(v); it != memo.end()) return it->second;
    double n = 0.0;
    for (const Edge& e : boost::make_iterator_range(boost::out_edges(v, g))) {
      const Vertex u = boost::target(e, g);
      if (on_shortest(d[v], d[u], weight(e))) n += count(u);
    }
    memo.emplace(v, n);
    return n;
  };
  return count(a);
}

std::vector<DirectedLink> Router::path(Vertex a, Vertex b, std::uint64_t flow_key) {
  const auto& d = distances_to(b);
  if (d[a] == kInf)
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
    for (const Edge& e : boost::make_iterator_range(boost::out_edges(v, g)))
      if (on_shortest(d[v], d[boost::target(e, g)], weight(e))) next.push_back(e);
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
