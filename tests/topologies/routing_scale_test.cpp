// Routes computed on demand from shared per-switch tables equal the routes of a stored all-pairs table
// (the reference below: one full search per destination over the whole graph, the simplest correct
// router), on small fat-trees, the other generated fabrics and a GraphML file; hop counts checked by
// hand, with the source-server searches a fat-tree's routes keep; and a router whose table budget forces
// evictions routes exactly as one that keeps every table.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <sstream>

#include "fleetwatt/topologies/fabrics/topology_config.hpp"
#include "fleetwatt/topologies/graph/graph_io.hpp"
#include "fleetwatt/topologies/graph/routing.hpp"
#include "graphml_head.hpp"

using namespace fleetwatt::topologies;
using fleetwatt::test::kGraphmlHead;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Stored routes: for each destination, the distance from every vertex over the whole graph, under the
/// routing rules written out independently of the router: a route leaves its source's server once, then
/// crosses network vertices only, then enters its destination's server once (phases 0 -> 1 -> 2, never
/// back), and a third server is never crossed. Paths are chosen the documented way: the shortest-path
/// DAG walked with the out-edges in Boost's order, branch i of n taken as key % n, key /= n, where the
/// key is splitmix64((a << 32) ^ b) + flow_key.
class StoredRoutes {
 public:
  StoredRoutes(const Topology& t, RouteMetric m) : t_(t), m_(m) {}

  std::vector<DirectedLink> path(Vertex a, Vertex b, std::uint64_t flow_key) {
    const Graph& g = t_.graph();
    const auto& d = table(a, b);
    REQUIRE(d[a] < kInf);
    std::uint64_t key = mix((static_cast<std::uint64_t>(a) << 32) ^ b) + flow_key;
    std::vector<DirectedLink> out;
    Vertex v = a;
    while (v != b) {
      std::vector<Edge> next;
      for (const Edge& e : boost::make_iterator_range(boost::out_edges(v, g))) {
        const Vertex u = boost::target(e, g);
        if (phase(u, a, b) < phase(v, a, b)) continue;
        if (on_shortest(d[v], d[u], weight(e))) next.push_back(e);
      }
      REQUIRE(!next.empty());
      const Edge e = next[key % next.size()];
      key /= next.size();
      out.push_back(t_.directed(g[e].id, v));
      v = boost::target(e, g);
    }
    return out;
  }
  double distance(Vertex a, Vertex b) { return table(a, b)[a]; }

 private:
  static std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  double weight(const Edge& e) const {
    return m_ == RouteMetric::hops ? 1.0 : t_.link(t_.graph()[e].id).latency_s + 1e-12;
  }
  bool on_shortest(double dv, double du, double w) const {
    if (m_ == RouteMetric::hops) return du + w == dv;
    return std::abs(du + w - dv) <= 1e-9 * 1e-12 + 1e-12 * dv;
  }
  /// 0: the source's server, 1: the network, 2: the destination's server, 3: not allowed.
  int phase(Vertex v, Vertex a, Vertex b) const {
    const auto s = t_.vertex(v).node;
    if (s < 0) return 1;
    if (s == t_.vertex(b).node) return 2;
    if (s == t_.vertex(a).node) return 0;
    return 3;
  }
  /// Distances to b of every vertex, for routes from a's server (a full Dijkstra over the graph).
  const std::vector<double>& table(Vertex a, Vertex b) {
    const auto key = std::make_pair(t_.vertex(a).node, b);
    if (const auto it = tables_.find(key); it != tables_.end()) return it->second;
    const Graph& g = t_.graph();
    std::vector<double> d(t_.vertex_count(), kInf);
    using Entry = std::pair<double, Vertex>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    d[b] = 0.0;
    heap.emplace(0.0, b);
    while (!heap.empty()) {
      const auto [dist, u] = heap.top();
      heap.pop();
      if (dist > d[u]) continue;
      for (const Edge& e : boost::make_iterator_range(boost::out_edges(u, g))) {
        const Vertex v = boost::target(e, g);  // a route would go v -> u: phases must not fall
        if (phase(v, a, b) == 3 || phase(v, a, b) > phase(u, a, b)) continue;
        if (dist + weight(e) < d[v]) {
          d[v] = dist + weight(e);
          heap.emplace(d[v], v);
        }
      }
    }
    return tables_.emplace(key, std::move(d)).first->second;
  }

  const Topology& t_;
  RouteMetric m_;
  std::map<std::pair<std::int32_t, Vertex>, std::vector<double>> tables_;
};

/// Every ordered pair of GPUs on different servers, and GPU <-> storage, under keys 0..2: the router's
/// route is the stored one. Returns the number of routes compared.
std::size_t compare_all(const Topology& t, RouteMetric m, std::size_t table_budget_bytes) {
  Router r(t, m, table_budget_bytes);
  StoredRoutes stored(t, m);
  std::vector<Vertex> ends = t.gpus();
  for (const Vertex s : t.vertices_of(VertexKind::storage)) ends.push_back(s);
  std::size_t n = 0;
  for (const Vertex a : ends)
    for (const Vertex b : ends) {
      const auto sa = t.vertex(a).node, sb = t.vertex(b).node;
      if (a == b || (sa >= 0 && sa == sb) || (sa < 0 && sb < 0)) continue;
      for (std::uint64_t key = 0; key < 3; ++key) {
        const auto p = r.path(a, b, key);
        const auto q = stored.path(a, b, key);
        if (p != q) FAIL_CHECK(t.vertex(a).name << " -> " << t.vertex(b).name << " key " << key);
        // The same route appended to a collective's array, and its latency summed by the walk: the same
        // number, bit for bit, as latency() of the route.
        std::vector<DirectedLink> appended{7};
        const double walked_s = r.append_path(a, b, key, appended);
        CHECK(std::equal(p.begin(), p.end(), appended.begin() + 1, appended.end()));
        CHECK(walked_s == r.latency(p));
        ++n;
      }
      if (m == RouteMetric::hops) CHECK(r.distance(a, b) == stored.distance(a, b));
      CHECK(r.cached_network_tables() <= r.network_table_limit() + 8);
    }
  return n;
}

TopologyConfig config(std::string kind) {
  TopologyConfig c;
  c.kind = kind;
  c.storage.servers = 2;
  return c;
}

}  // namespace

TEST_CASE("on-demand routes equal the stored all-pairs routes on small fat-trees, both metrics") {
  for (const std::uint32_t k : {2u, 4u, 6u}) {
    TopologyConfig c = config("fat_tree");
    c.k = k;
    c.node.nics = 2;
    const std::uint32_t nodes = k * k * k / 4;
    const Topology t = build_topology(c, nodes, 2);
    for (const auto m : {RouteMetric::hops, RouteMetric::latency}) {
      INFO("k = " << k << (m == RouteMetric::hops ? ", hops" : ", latency"));
      CHECK(compare_all(t, m, Router::kDefaultTableBudgetBytes) > 0);
    }
  }
}

TEST_CASE("on-demand routes equal the stored routes on leaf-spine, dragonfly, torus and ring fabrics") {
  TopologyConfig ls = config("leaf_spine");
  ls.leaves = 3;
  ls.spines = 2;
  ls.hosts_per_leaf = 3;
  TopologyConfig df = config("dragonfly");
  df.groups = 3;
  df.routers_per_group = 2;
  df.global_links = 1;
  TopologyConfig torus = config("torus");
  torus.dims = {3, 2};
  TopologyConfig ring = config("ring");
  ring.routers = 5;
  for (const auto& [c, nodes] : {std::pair{ls, 9u}, {df, 6u}, {torus, 6u}, {ring, 5u}}) {
    const Topology t = build_topology(c, nodes, 2);
    for (const auto m : {RouteMetric::hops, RouteMetric::latency}) CHECK(compare_all(t, m, 1) > 0);
  }
}

TEST_CASE("fat-tree hop counts by hand, and ECMP path counts (k/2)^2 across pods") {
  // k = 4, one GPU and one NIC per server, two servers per edge switch. A route GPU -> PCIe switch -> NIC
  // -> edge [-> aggregation [-> core -> aggregation] -> edge] -> NIC -> PCIe switch -> GPU:
  // 6 hops under one edge switch, 8 within a pod, 10 across pods; across pods there are 2 aggregation
  // switches up x 2 cores each = 4 = (k/2)^2 equal paths, within a pod 2.
  TopologyConfig c = config("fat_tree");
  c.k = 4;
  c.storage.servers = 0;
  const Topology t = build_topology(c, 16, 1);
  Router r(t, RouteMetric::hops, 1);  // one table kept: every route across edges evicts
  const auto& gpu = t.gpus();
  CHECK(r.distance(gpu[0], gpu[1]) == 6);
  CHECK(r.distance(gpu[0], gpu[2]) == 8);
  CHECK(r.distance(gpu[0], gpu[4]) == 10);
  CHECK(r.distance(gpu[0], gpu[15]) == 10);
  CHECK(r.path_count(gpu[0], gpu[1]) == 1);
  CHECK(r.path_count(gpu[0], gpu[2]) == 2);
  CHECK(r.path_count(gpu[0], gpu[4]) == 4);
  CHECK(r.path(gpu[0], gpu[4], 0).size() == 10);
  CHECK(r.cached_network_tables() <= 2);  // a route's one exit table, after evicting
}

TEST_CASE("a fat-tree's routes search each source server once per distance to the destination") {
  // k = 4, one GPU and one NIC per server (GPU - PCIe switch - NIC - edge switch), sixteen servers of one
  // shape. From a server's edge switch a destination GPU in another server is 3 hops away under the same
  // edge (edge NIC PCIe GPU), 5 in the same pod and 7 across pods: three keys, whatever the pair, so
  // routing all 240 ordered pairs of servers keeps three source sides. Every route is checked against a
  // fresh router's (which searches every time) below; here the count is the point.
  TopologyConfig c = config("fat_tree");
  c.k = 4;
  c.storage.servers = 0;
  const Topology t = build_topology(c, 16, 1);
  Router r(t, RouteMetric::hops);
  for (const Vertex a : t.gpus())
    for (const Vertex b : t.gpus())
      if (a != b) (void)r.path(a, b, 0);
  CHECK(r.cached_source_sides() == 3);
}

TEST_CASE("a router with a one-table budget routes exactly as one that keeps every table") {
  TopologyConfig c = config("fat_tree");
  c.k = 4;
  const Topology t = build_topology(c, 16, 2);
  Router small(t, RouteMetric::latency, 1), big(t, RouteMetric::latency);
  CHECK(small.network_table_limit() == 1);
  for (const Vertex a : t.gpus())
    for (const Vertex b : t.gpus())
      for (std::uint64_t key = 0; key < 2; ++key) CHECK(small.path(a, b, key) == big.path(a, b, key));
  CHECK(small.cached_network_tables() <= 2);
  // k = 4: 8 edge switches host servers (tables shared by their GPUs), and a same-server route needs none.
  CHECK(big.cached_network_tables() == 8);
}

TEST_CASE("a router gives every pair the route a fresh router gives it, single path or not") {
  // A k = 4 fat-tree: GPUs of one server and servers under one edge switch have one shortest path (kept by
  // the memo after the first route), servers in different pods have four (never kept: the key chooses).
  TopologyConfig c = config("fat_tree");
  c.k = 4;
  c.storage.servers = 0;
  const Topology t = build_topology(c, 16, 2);
  Router warm(t, RouteMetric::hops);
  const auto& gpus = t.gpus();
  for (int round = 0; round < 2; ++round)
    for (std::size_t i = 0; i < gpus.size(); ++i)
      for (std::size_t j = 0; j < gpus.size(); ++j)
        for (std::uint64_t key = 0; key < 3; ++key) {
          if (i == j) continue;
          Router fresh(t, RouteMetric::hops);
          INFO("gpu " << i << " to gpu " << j << ", key " << key << ", round " << round);
          CHECK(warm.path(gpus[i], gpus[j], key) == fresh.path(gpus[i], gpus[j], key));
        }
}

TEST_CASE("routes on a GraphML topology equal the stored routes, with hop counts by hand") {
  // Four routers in a ring r0 - r1 - r2 - r3 - r0 plus a chord r0 - r2; server i (GPUs gi0, gi1 on one
  // NVSwitch-like hub hi) hangs off router ri; storage st on r3. By hand, in hops:
  //   g00 -> g01: g00 h0 g01 = 2 (inside the server)
  //   g00 -> g10: g00 h0 r0 r1 h1 g10 = 5
  //   g00 -> g20: g00 h0 r0 r2 h2 g20 = 5 (the chord), 1 path
  //   g10 -> g30: g10 h1 r1 {r0|r2} r3 h3 g30 = 6, 2 paths
  //   g00 -> st : g00 h0 r0 r3 st = 4
  std::ostringstream xml;
  xml << kGraphmlHead;
  // A vertex whose name is its id (a letter and digits), of a kind, in a server (or none).
  const auto node = [&xml](const auto& id, const char* kind, int server = -1) {
    xml << "<node id=\"" << id << "\"><data key=\"n\">" << id << "</data><data key=\"k\">" << kind
        << "</data>";
    if (server >= 0) xml << "<data key=\"nd\">" << server << "</data>";
    xml << "</node>\n";
  };
  const auto id = [](char letter, int i, int j = -1) {
    std::ostringstream o;
    o << letter << i;
    if (j >= 0) o << j;
    return o.str();
  };
  for (int i = 0; i < 4; ++i) {
    node(id('r', i), "leaf");
    node(id('h', i), "nvswitch", i);
    for (int j = 0; j < 2; ++j) {
      node(id('g', i, j), "gpu", i);
      xml << "<edge source=\"g" << i << j << "\" target=\"h" << i
          << "\"><data key=\"bw\">800</data></edge>\n";
    }
    xml << "<edge source=\"h" << i << "\" target=\"r" << i << "\"><data key=\"bw\">400</data></edge>\n";
    xml << "<edge source=\"r" << i << "\" target=\"r" << (i + 1) % 4
        << "\"><data key=\"bw\">400</data><data key=\"lat\">" << (i + 1) << "</data></edge>\n";
  }
  node("st", "storage");
  xml << R"(<edge source="r0" target="r2"><data key="bw">400</data><data key="lat">9</data></edge>
<edge source="st" target="r3"><data key="bw">400</data></edge>
  </graph>
</graphml>
)";
  std::istringstream in(xml.str());
  const Topology t = read_graphml(in, "ring.graphml");
  const auto v = [&](const char* name) { return *t.find(name); };
  Router r(t, RouteMetric::hops);
  CHECK(r.distance(v("g00"), v("g01")) == 2);
  CHECK(r.distance(v("g00"), v("g10")) == 5);
  CHECK(r.distance(v("g00"), v("g20")) == 5);
  CHECK(r.path_count(v("g00"), v("g20")) == 1);
  CHECK(r.distance(v("g10"), v("g30")) == 6);
  CHECK(r.path_count(v("g10"), v("g30")) == 2);
  CHECK(r.distance(v("g00"), v("st")) == 4);
  CHECK(r.distance(v("st"), v("g00")) == 4);
  // Under latency (r_i - r_i+1 at i+1 us, the chord at 9 us): g00 -> g20 goes r0 r1 r2 (1 + 2 = 3 us)
  // rather than the chord; g00 -> g30 goes r0 r3 (4 us) rather than r0 r1 r2 r3 (1 + 2 + 3 = 6 us).
  Router lat(t, RouteMetric::latency);
  CHECK(lat.vertices(v("g00"), lat.path(v("g00"), v("g20"))) ==
        std::vector<Vertex>{v("g00"), v("h0"), v("r0"), v("r1"), v("r2"), v("h2"), v("g20")});
  CHECK(lat.vertices(v("g00"), lat.path(v("g00"), v("g30"))) ==
        std::vector<Vertex>{v("g00"), v("h0"), v("r0"), v("r3"), v("h3"), v("g30")});
  for (const auto m : {RouteMetric::hops, RouteMetric::latency}) CHECK(compare_all(t, m, 1) > 0);
}

TEST_CASE("a switch's equal next hops into a server and to another switch keep the links' order") {
  // Server 0: g0 - a0 - s. Server 1: g1 behind two ways in, a1 - c1 - g1 (from s) and b1 - g1 (from t,
  // itself behind s). From s both s a1 c1 g1 and s t b1 g1 take 3 hops: the walk's equal next hops are a
  // server entry and a switch, which the router lists apart. s's links were made in the order a0, a1, t,
  // so ECMP's branch 0 is a1 and branch 1 is t: the stored routes (which walk Boost's out-edges, without
  // the router's lists) must agree on every key, which they do only if the lists are put back in order.
  std::ostringstream xml;
  xml << kGraphmlHead << R"(    <node id="s"><data key="n">s</data><data key="k">leaf</data></node>
    <node id="t"><data key="n">t</data><data key="k">leaf</data></node>
    <node id="g0"><data key="n">g0</data><data key="k">gpu</data><data key="nd">0</data></node>
    <node id="a0"><data key="n">a0</data><data key="k">nic</data><data key="nd">0</data></node>
    <node id="g1"><data key="n">g1</data><data key="k">gpu</data><data key="nd">1</data></node>
    <node id="a1"><data key="n">a1</data><data key="k">nic</data><data key="nd">1</data></node>
    <node id="c1"><data key="n">c1</data><data key="k">pcie_switch</data><data key="nd">1</data></node>
    <node id="b1"><data key="n">b1</data><data key="k">nic</data><data key="nd">1</data></node>
    <edge source="g0" target="a0"><data key="bw">100</data></edge>
    <edge source="a0" target="s"><data key="bw">100</data></edge>
    <edge source="s" target="a1"><data key="bw">100</data></edge>
    <edge source="s" target="t"><data key="bw">100</data></edge>
    <edge source="a1" target="c1"><data key="bw">100</data></edge>
    <edge source="c1" target="g1"><data key="bw">100</data></edge>
    <edge source="t" target="b1"><data key="bw">100</data></edge>
    <edge source="b1" target="g1"><data key="bw">100</data></edge>
  </graph>
</graphml>
)";
  std::istringstream in(xml.str());
  const Topology t = read_graphml(in, "mixed.graphml");
  const auto v = [&](const char* name) { return *t.find(name); };
  Router r(t, RouteMetric::hops);
  CHECK(r.distance(v("g0"), v("g1")) == 5);
  CHECK(r.path_count(v("g0"), v("g1")) == 2);
  // Both branches are taken over a few keys, each the way the links were made.
  std::set<std::vector<Vertex>> seen;
  for (std::uint64_t key = 0; key < 8; ++key) seen.insert(r.vertices(v("g0"), r.path(v("g0"), v("g1"), key)));
  CHECK(seen == std::set<std::vector<Vertex>>{{v("g0"), v("a0"), v("s"), v("a1"), v("c1"), v("g1")},
                                              {v("g0"), v("a0"), v("s"), v("t"), v("b1"), v("g1")}});
  for (const auto m : {RouteMetric::hops, RouteMetric::latency}) CHECK(compare_all(t, m, 1) > 0);
}
