// Shortest paths to a destination over the network and the end points' servers (Dijkstra on a binary heap;
// unit weights for hops) over a compact copy of the graph's adjacency, network tables shared per attachment
// vertex, and ECMP path choice by walking the shortest-path DAG.
#include "fleetwatt/topologies/graph/routing.hpp"

#include "fleetwatt/core/random.hpp"

#include "fleetwatt/core/assert.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <stdexcept>

#include <fmt/format.h>

namespace fleetwatt::topologies {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// Every link costs at least one picosecond under the latency metric, so zero-latency links cannot form
// zero-cost cycles and, among equal latencies, fewer hops win.
constexpr double kHopTieBreak_s = 1e-12;
// Destinations kept (about 140 bytes each with their server-side distances, in flat pools), one per
// (server shape, slot): a uniform fleet needs one per slot of its one shape; servers of many shapes (a
// GraphML fabric) keep the last 4,096 used, and beyond that all are dropped and recomputed (a search over
// a dozen vertices each, allocating nothing).
constexpr std::size_t kCacheLimit = 1 << 12;
constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

// splitmix64 spreads end-point pairs over the equal paths.
using core::splitmix64;

using HeapEntry = std::pair<double, Vertex>;
using MinHeap = std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>>;

/// MinHeap's operations on a vector the caller keeps (std::priority_queue is these very heap calls), so
/// that the search done for every route allocates nothing.
class ReusedHeap {
 public:
  explicit ReusedHeap(std::vector<std::pair<double, Vertex>>& c, bool keep = false) : c_(c) {
    if (!keep) c_.clear();
  }
  [[nodiscard]] bool empty() const { return c_.empty(); }
  [[nodiscard]] const HeapEntry& top() const { return c_.front(); }
  void emplace(double d, Vertex v) {
    c_.emplace_back(d, v);
    std::push_heap(c_.begin(), c_.end(), std::greater<>());
  }
  void pop() {
    std::pop_heap(c_.begin(), c_.end(), std::greater<>());
    c_.pop_back();
  }

 private:
  std::vector<HeapEntry>& c_;
};
}  // namespace

/// Distance lookup for one (source, destination) pair: network vertices from the destination's exits and
/// their shared network tables, destination-server vertices from the cached search of that server,
/// source-server vertices from a search of that server alone, other servers unreachable. It refers to the
/// router's scratch and tables: valid during one public call of the router (nothing is evicted or
/// overwritten before the call returns), so a route allocates nothing.
class Router::Distances {
 public:
  Distances(const Router& r, const std::vector<Exit>& exits, std::span<const double> own,
            std::int32_t dst_server, std::int32_t src_server, std::span<const double> local)
      : r_(r), exits_(exits), own_(own), dst_server_(dst_server), src_server_(src_server), local_(local) {}

  double operator()(Vertex v) const {
    const std::int32_t s = r_.server_[v];
    if (s < 0) return network(r_.slot_[v]);
    if (s == dst_server_) return own_[r_.slot_[v]];
    if (s == src_server_) return local_[r_.slot_[v]];
    return kInf;
  }
  /// Distance of the network vertex in `slot`: the nearest exit. Floating-point addition rounds
  /// monotonically, so this equals the minimum a full per-destination table held, bit for bit.
  double network(std::uint32_t slot) const {
    if (exits_.size() == 1) return exits_.front().table[slot] + exits_.front().offset;  // one way in
    double d = kInf;
    for (const Exit& e : exits_) d = std::min(d, e.table[slot] + e.offset);
    return d;
  }

 private:
  const Router& r_;
  const std::vector<Exit>& exits_;
  std::span<const double> own_;
  std::int32_t dst_server_, src_server_;
  std::span<const double> local_;
};

Router::Router(const Topology& topo, RouteMetric metric, std::size_t table_budget_bytes)
    : topo_(topo), metric_(metric) {
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
  // The adjacency in Boost's out-edge order (ECMP choices index it), with each arc's directed link and
  // latency (a walk sums the route's latency as it goes): 16 bytes per link end, read sequentially by
  // every search and walk.
  arc_begin_.assign(n + 1, 0);
  arcs_.reserve(2 * topo_.link_count());
  for (Vertex v = 0; v < n; ++v) {
    arc_begin_[v] = static_cast<std::uint32_t>(arcs_.size());
    for (const Edge& e : boost::make_iterator_range(boost::out_edges(v, g))) {
      const std::uint32_t id = g[e].id;
      const double latency_s = topo_.link(id).latency_s;
      arcs_.push_back(Arc{static_cast<std::uint32_t>(boost::target(e, g)), topo_.directed(id, v), latency_s,
                          metric_ == RouteMetric::hops ? 1.0 : latency_s + kHopTieBreak_s});
    }
  }
  arc_begin_[n] = static_cast<std::uint32_t>(arcs_.size());
  order_network_slots();
  find_server_shapes();
  index_network_arcs();
  network_tables_.resize(network_vertices_);
  const std::size_t table_bytes = std::max<std::size_t>(1, network_vertices_) * sizeof(double);
  network_cache_limit_ = std::max<std::size_t>(1, table_budget_bytes / table_bytes);
}

void Router::order_network_slots() {
  // Breadth-first from each not yet reached network vertex in vertex order, over network links. In a
  // fat-tree this numbers one pod's aggregation switches after its edge switch, the core switches by the
  // aggregation switch that reaches them, then every other pod's aggregation switches of one index
  // together, and their edge switches pod by pod: a switch's neighbours sit in a few runs of slots, so a
  // walk reading their distances from a network table touches a few cache lines instead of one each.
  // Slots only index tables: no distance or route depends on their order.
  std::vector<Vertex> order;
  order.reserve(network_vertices_);
  std::vector<std::uint8_t> seen(server_.size(), 0);
  for (Vertex start = 0; start < server_.size(); ++start) {
    if (server_[start] >= 0 || seen[start] != 0) continue;
    seen[start] = 1;
    order.push_back(start);
    for (std::size_t head = order.size() - 1; head < order.size(); ++head) {
      for (const Arc& a : arcs(order[head])) {
        if (server_[a.to] >= 0 || seen[a.to] != 0) continue;
        seen[a.to] = 1;
        order.push_back(a.to);
      }
    }
  }
  for (std::size_t i = 0; i < order.size(); ++i) slot_[order[i]] = static_cast<std::uint32_t>(i);
}

void Router::index_network_arcs() {
  // Compressed rows, counted then filled, in adjacency order (next_hops() keeps that order).
  network_arc_begin_.assign(network_vertices_ + 1, 0);
  entry_begin_.assign(server_vertices_.size() + 1, 0);
  const auto n = static_cast<Vertex>(server_.size());
  for (Vertex v = 0; v < n; ++v) {
    if (server_[v] >= 0) continue;
    for (const Arc& a : arcs(v)) {
      if (server_[a.to] < 0) {
        ++network_arc_begin_[slot_[v] + 1];
      } else {
        ++entry_begin_[static_cast<std::size_t>(server_[a.to]) + 1];
      }
    }
  }
  for (std::size_t i = 1; i < network_arc_begin_.size(); ++i)
    network_arc_begin_[i] += network_arc_begin_[i - 1];
  for (std::size_t i = 1; i < entry_begin_.size(); ++i) entry_begin_[i] += entry_begin_[i - 1];
  network_arcs_.resize(network_arc_begin_.back());
  entries_.resize(entry_begin_.back());
  std::vector<std::uint32_t> net_at(network_arc_begin_.begin(), network_arc_begin_.end() - 1);
  std::vector<std::uint32_t> entry_at(entry_begin_.begin(), entry_begin_.end() - 1);
  for (Vertex v = 0; v < n; ++v) {
    if (server_[v] >= 0) continue;
    for (std::uint32_t i = arc_begin_[v]; i < arc_begin_[v + 1]; ++i) {
      const Vertex to = arcs_[i].to;
      if (server_[to] < 0) {
        network_arcs_[net_at[slot_[v]]++] = NetworkArc{slot_[to], i};
      } else {
        entries_[entry_at[static_cast<std::size_t>(server_[to])]++] = ServerEntry{v, i};
      }
    }
  }
}

bool Router::on_shortest(double dist_v, double dist_u, double w) const {
  if (metric_ == RouteMetric::hops) return dist_u + w == dist_v;
  return std::abs(dist_u + w - dist_v) <= 1e-9 * kHopTieBreak_s + 1e-12 * dist_v;
}

const double* Router::network_distances(Vertex from) {
  auto& cached = network_tables_[slot_[from]];
  if (!cached.empty()) return cached.data();
  std::vector<double> dist(network_vertices_, kInf);
  MinHeap heap;
  dist[slot_[from]] = 0.0;
  heap.emplace(0.0, from);
  while (!heap.empty()) {
    const auto [d, v] = heap.top();
    heap.pop();
    if (d > dist[slot_[v]]) continue;
    for (const NetworkArc& na : network_arcs(slot_[v])) {  // servers do not forward
      const Arc& a = arcs_[na.arc];
      const double nd = d + a.weight;
      if (nd < dist[na.slot]) {
        dist[na.slot] = nd;
        heap.emplace(nd, a.to);
      }
    }
  }
  cached = std::move(dist);
  network_filled_.push_back(slot_[from]);
  return cached.data();
}

void Router::settle_within_server(std::vector<double>& dist, std::int32_t server) {
  // Dijkstra from what the caller seeded into heap_, over the server's own vertices (by server slot).
  ReusedHeap heap(heap_, true);
  while (!heap.empty()) {
    const auto [d, v] = heap.top();
    heap.pop();
    if (d > dist[slot_[v]]) continue;
    for (const Arc& a : arcs(v)) {
      if (server_[a.to] != server) continue;
      const double nd = d + a.weight;
      if (nd < dist[slot_[a.to]]) {
        dist[slot_[a.to]] = nd;
        heap.emplace(nd, a.to);
      }
    }
  }
}

void Router::find_server_shapes() {
  // A server's signature: per member (in slot order), its arcs in adjacency order as (the neighbour's slot
  // in the server, or its attachment index with a high bit, the weight's bits); arcs to other servers are
  // left out (a destination's distances never use them). Equal signatures give equal distances, bit for
  // bit: the same searches over the same weights.
  constexpr std::uint64_t kMemberMark = ~std::uint64_t{0}, kNetworkBit = std::uint64_t{1} << 63;
  std::map<std::vector<std::uint64_t>, std::uint32_t> shapes;
  std::vector<std::uint64_t> signature;
  shape_of_.assign(server_vertices_.size(), 0);
  attach_begin_.assign(server_vertices_.size() + 1, 0);
  links_servers_.assign(server_vertices_.size(), 0);
  for (std::size_t s = 0; s < server_vertices_.size(); ++s) {
    attach_begin_[s] = static_cast<std::uint32_t>(attach_pool_.size());
    signature.clear();
    for (const Vertex u : server_vertices_[s]) {
      signature.push_back(kMemberMark);
      for (const Arc& a : arcs(u)) {
        std::uint64_t to;
        if (server_[a.to] == static_cast<std::int32_t>(s)) {
          to = slot_[a.to];
        } else if (server_[a.to] < 0) {
          const auto first = attach_pool_.begin() + attach_begin_[s];
          const auto at = std::find(first, attach_pool_.end(), a.to);
          to = kNetworkBit | static_cast<std::uint64_t>(at - first);
          if (at == attach_pool_.end()) attach_pool_.push_back(a.to);
        } else {
          links_servers_[s] = 1;  // its source-side distances depend on that server too
          continue;
        }
        signature.push_back(to);
        signature.push_back(std::bit_cast<std::uint64_t>(a.weight));
      }
    }
    const auto [it, fresh] = shapes.emplace(signature, static_cast<std::uint32_t>(shape_base_.size()));
    if (fresh) {
      shape_base_.push_back(static_cast<std::uint32_t>(shape_entry_.size()));
      shape_entry_.resize(shape_entry_.size() + server_vertices_[s].size(), 0);
    }
    shape_of_[s] = it->second;
  }
  attach_begin_.back() = static_cast<std::uint32_t>(attach_pool_.size());
}

Router::ToDestination Router::to_destination(Vertex dst) {
  const std::int32_t ds = server_[dst];
  dest_exits_.clear();
  if (ds < 0) {
    dest_exits_.emplace_back(dst, 0.0);  // a network vertex: no server to enter
    return ToDestination{dest_exits_, {}};
  }
  const auto server = static_cast<std::size_t>(ds);
  const std::uint32_t key = shape_base_[shape_of_[server]] + slot_[dst];
  if (shape_entry_[key] == 0) {
    if (destinations_.size() >= kCacheLimit) {
      for (const auto& c : destinations_) shape_entry_[c.key] = 0;
      destinations_.clear();
      own_pool_.clear();
      exit_pool_.clear();
    }
    // Inside the destination's server, then out through each of its links to the network: a route enters
    // its destination server once, so a network vertex's distance is the one to an attachment switch (a
    // table shared by every GPU behind it) plus the way in.
    const auto& members = server_vertices_[server];
    auto& own = dest_own_;
    auto& exits = dest_by_attach_;
    own.assign(members.size(), kInf);
    exits.clear();
    ReusedHeap heap(heap_);
    own[slot_[dst]] = 0.0;
    heap.emplace(0.0, dst);
    settle_within_server(own, ds);
    const auto first = attach_pool_.begin() + attach_begin_[server];
    const auto last = attach_pool_.begin() + attach_begin_[server + 1];
    for (const Vertex u : members) {
      if (own[slot_[u]] == kInf) continue;
      for (const Arc& a : arcs(u)) {
        if (server_[a.to] >= 0) continue;
        const double offset = own[slot_[u]] + a.weight;
        const auto index = static_cast<std::uint32_t>(std::find(first, last, a.to) - first);
        // One exit per attachment vertex, at its smallest offset: table + offset rounds monotonically in
        // the offset, so the minimum is unchanged (a server's NICs usually share one leaf switch).
        const auto same =
            std::find_if(exits.begin(), exits.end(), [index](const auto& ex) { return ex.first == index; });
        if (same == exits.end()) {
          exits.emplace_back(index, offset);
        } else {
          same->second = std::min(same->second, offset);
        }
      }
    }
    destinations_.push_back(CachedDestination{
        key, static_cast<std::uint32_t>(own_pool_.size()), static_cast<std::uint32_t>(own.size()),
        static_cast<std::uint32_t>(exit_pool_.size()), static_cast<std::uint32_t>(exits.size())});
    own_pool_.insert(own_pool_.end(), own.begin(), own.end());
    exit_pool_.insert(exit_pool_.end(), exits.begin(), exits.end());
    shape_entry_[key] = static_cast<std::uint32_t>(destinations_.size());
  }
  const CachedDestination& c = destinations_[shape_entry_[key] - 1];
  const Vertex* attach = attach_pool_.data() + attach_begin_[server];
  for (std::uint32_t i = 0; i < c.exits_n; ++i) {
    const auto& [index, offset] = exit_pool_[c.exits_at + i];
    dest_exits_.emplace_back(attach[index], offset);
  }
  return ToDestination{dest_exits_, {own_pool_.data() + c.own_at, c.own_n}};
}

Router::Distances Router::distances(Vertex src, Vertex dst) {
  const ToDestination to = to_destination(dst);
  const std::int32_t ds = server_[dst], ss = server_[src];
  if (ss >= 0 && ss == ds && to.own[slot_[src]] == kInf) {
    // Two vertices of one server joined only through the network (a switch outside it): search the
    // network and the server together. Rare: inside a server GPUs reach each other directly.
    scratch_net_.assign(network_vertices_, kInf);
    scratch_own_.assign(to.own.size(), kInf);
    const auto dist = [&](Vertex v) -> double* {
      if (server_[v] < 0) return &scratch_net_[slot_[v]];
      if (server_[v] == ds) return &scratch_own_[slot_[v]];
      return nullptr;
    };
    MinHeap heap;
    *dist(dst) = 0.0;
    heap.emplace(0.0, dst);
    while (!heap.empty()) {
      const auto [d, v] = heap.top();
      heap.pop();
      if (d > *dist(v)) continue;
      for (const Arc& a : arcs(v)) {
        double* du = dist(a.to);
        if (du != nullptr && d + a.weight < *du) {
          *du = d + a.weight;
          heap.emplace(*du, a.to);
        }
      }
    }
    exits_.assign(1, Exit{scratch_net_.data(), 0.0});
    local_.clear();
    return Distances(*this, exits_, scratch_own_, ds, ss, local_);
  }
  // Tables are evicted only here, before this route fetches its own: the pointers stay valid until the
  // next route. Eviction drops them all (they are recomputed on demand); no result depends on it.
  if (network_filled_.size() + to.exits.size() > network_cache_limit_) {
    for (const std::uint32_t slot : network_filled_) std::vector<double>().swap(network_tables_[slot]);
    network_filled_.clear();
  }
  exits_.clear();
  for (const auto& [x, offset] : to.exits) exits_.push_back({network_distances(x), offset});
  auto& local = local_;
  local.clear();
  if (ss >= 0 && ss != ds) {
    // The source server's side: seeded from its links to the network and to the destination's server,
    // then searched within the server.
    const Distances net(*this, exits_, to.own, ds, ss, local);
    const auto server = static_cast<std::size_t>(ss);
    const bool memo = !links_servers_[server];  // seeded from the network alone
    if (memo) {
      source_key_.clear();
      for (std::uint32_t i = attach_begin_[server]; i < attach_begin_[server + 1]; ++i)
        source_key_.push_back(net.network(slot_[attach_pool_[i]]));
      if (const auto kept = source_sides_.find(shape_of_[server], source_key_))
        return Distances(*this, exits_, to.own, ds, ss, *kept);
    }
    const auto& members = server_vertices_[server];
    local.assign(members.size(), kInf);
    ReusedHeap heap(heap_);
    for (const Vertex u : members) {
      for (const Arc& a : arcs(u)) {
        const std::int32_t xs = server_[a.to];
        double dx = kInf;
        if (xs < 0) dx = net.network(slot_[a.to]);
        if (xs >= 0 && xs == ds) dx = to.own[slot_[a.to]];
        if (dx + a.weight < local[slot_[u]]) local[slot_[u]] = dx + a.weight;
      }
      if (local[slot_[u]] < kInf) heap.emplace(local[slot_[u]], u);
    }
    settle_within_server(local, ss);
    if (memo) source_sides_.keep(shape_of_[server], source_key_, local);
  }
  return Distances(*this, exits_, to.own, ds, ss, local);
}

double Router::distance(Vertex a, Vertex b) {
  return distances(a, b)(a);
}

double Router::path_count(Vertex a, Vertex b) {
  const Distances d = distances(a, b);
  if (d(a) == kInf) return 0.0;
  std::unordered_map<Vertex, double> memo;
  std::function<double(Vertex)> count = [&](Vertex v) -> double {
    if (v == b) return 1.0;
    if (const auto it = memo.find(v); it != memo.end()) return it->second;
    double n = 0.0;
    for (const Arc& arc : arcs(v))
      if (on_shortest(d(v), d(arc.to), arc.weight)) n += count(arc.to);
    memo.emplace(v, n);
    return n;
  };
  return count(a);
}

std::vector<DirectedLink> Router::path(Vertex a, Vertex b, std::uint64_t flow_key) {
  std::vector<DirectedLink> out;
  append_path(a, b, flow_key, out);
  return out;
}

double Router::append_path(Vertex a, Vertex b, std::uint64_t flow_key, std::vector<DirectedLink>& out) {
  double memo_latency_s = 0.0;
  if (single_paths_.find(a, b, out, memo_latency_s)) return memo_latency_s;
  const Distances d = distances(a, b);
  if (d(a) == kInf)
    throw std::invalid_argument(
        fmt::format("no route from {} to {}", topo_.vertex(a).name, topo_.vertex(b).name));
  // Mixed-radix walk: at each branch point with n equal next hops, take key % n and divide the key by n, so
  // consecutive keys differ at the first branch point (paths spread evenly, deterministically).
  std::uint64_t key = splitmix64((static_cast<std::uint64_t>(a) << 32) ^ b) + flow_key;
  auto& next = next_;
  const std::int32_t ds = server_[b], ss = server_[a];
  Vertex v = a;
  double latency_s = 0.0;  // summed in route order, as latency() sums it
  const std::size_t first = out.size();
  bool single = true;  // no choice on the way: the pair's only shortest path, whatever the key
  while (v != b) {
    next_hops(v, d, ds, ss);
    single = single && next.size() == 1;
    const Arc& arc = *next[key % next.size()];
    key /= next.size();
    out.push_back(arc.link);
    latency_s += arc.latency_s;
    v = arc.to;
  }
  if (single) single_paths_.keep(a, b, std::span(out).subspan(first), latency_s);
  return latency_s;
}

void Router::next_hops(Vertex v, const Distances& d, std::int32_t dst_server, std::int32_t src_server) {
  auto& next = next_;
  next.clear();
  const double dv = d(v);
  if (server_[v] >= 0) {
    for (const Arc& arc : arcs(v))
      if (on_shortest(dv, d(arc.to), arc.weight)) next.push_back(&arc);
  } else {
    // A network vertex: its arcs into servers other than the route's two lead nowhere (servers do not
    // forward, so their distance is infinite), and the rest are listed apart.
    for (const NetworkArc& na : network_arcs(slot_[v])) {
      const Arc& arc = arcs_[na.arc];
      if (on_shortest(dv, d.network(na.slot), arc.weight)) next.push_back(&arc);
    }
    // Each list is in adjacency order; hops from more than one are put back in it (ECMP choices index it).
    int lists = next.empty() ? 0 : 1;
    const auto into = [&](std::int32_t server) {
      const std::size_t before = next.size();
      for (const ServerEntry& e : entries(server)) {
        if (e.from != v) continue;
        const Arc& arc = arcs_[e.arc];
        if (on_shortest(dv, d(arc.to), arc.weight)) next.push_back(&arc);
      }
      if (next.size() > before) ++lists;
    };
    if (dst_server >= 0) into(dst_server);
    if (src_server >= 0 && src_server != dst_server) into(src_server);
    if (lists > 1) std::sort(next.begin(), next.end());
  }
  FLEETWATT_ASSERT(!next.empty(), "shortest-path walk found no next hop");
}

double Router::latency(std::span<const DirectedLink> path) const {
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
