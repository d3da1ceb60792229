// Shortest paths by hops and by latency, and deterministic equal-cost multipath.
#include <catch2/catch.hpp>

#include <set>

#include "fleetwatt/topologies/fabrics/topology_config.hpp"
#include "fleetwatt/topologies/graph/routing.hpp"

using namespace fleetwatt::topologies;

namespace {
Vertex add(Topology& t, VertexKind k, const std::string& name, int node = kNoNode) {
  VertexProps p;
  p.kind = k;
  p.name = name;
  p.node = node;
  return t.add_vertex(p);
}
}  // namespace

TEST_CASE("the latency metric takes a longer but faster path, the hop metric the shorter one") {
  // a -- b directly at 10 us, or a -- s -- b at 1 us + 1 us.
  Topology t;
  const Vertex a = add(t, VertexKind::gpu, "a", 0), b = add(t, VertexKind::gpu, "b", 1);
  const Vertex s = add(t, VertexKind::leaf, "s");
  t.add_link(a, b, LinkSpec{1e9, 10e-6, 0, 0});
  t.add_link(a, s, LinkSpec{1e9, 1e-6, 0, 0});
  t.add_link(s, b, LinkSpec{1e9, 1e-6, 0, 0});
  Router hops(t, RouteMetric::hops), lat(t, RouteMetric::latency);
  CHECK(hops.path(a, b).size() == 1);
  const auto p = lat.path(a, b);
  CHECK(p.size() == 2);
  CHECK(lat.latency(p) == Approx(2e-6));
  CHECK(lat.vertices(a, p) == std::vector<Vertex>{a, s, b});
}

TEST_CASE("ECMP sends consecutive flow keys over different equal paths, the same key over the same path") {
  TopologyConfig c;
  c.kind = "fat_tree";
  c.k = 4;
  c.storage.servers = 0;
  const Topology t = build_topology(c, 16, 1);
  Router r(t, RouteMetric::hops);
  const Vertex a = t.nics_of(0).front(), b = t.nics_of(8).front();  // different pods: 4 equal paths
  REQUIRE(r.path_count(a, b) == 4);
  std::set<std::vector<DirectedLink>> seen;
  for (std::uint64_t key = 0; key < 4; ++key) seen.insert(r.path(a, b, key));
  CHECK(seen.size() == 4);
  CHECK(r.path(a, b, 17) == r.path(a, b, 17));
  Router again(t, RouteMetric::hops);
  CHECK(again.path(a, b, 3) == r.path(a, b, 3));
}

TEST_CASE("an unreachable destination is reported") {
  Topology t;
  const Vertex a = add(t, VertexKind::gpu, "a", 0), b = add(t, VertexKind::gpu, "b", 1);
  Router r(t, RouteMetric::hops);
  CHECK(r.distance(a, b) == std::numeric_limits<double>::infinity());
  CHECK_THROWS_AS(r.path(a, b), std::invalid_argument);
  CHECK(r.path(a, a).empty());
}

TEST_CASE("routes never pass through a third server, even when that would be shorter") {
  // Servers 0 and 2 hang off switches s0 and s2; server 1 has a NIC on each. Through server 1,
  // g0 s0 n1a p1 n1b s2 g2 is 6 hops; the network's own way, g0 s0 c1 c3 c4 c2 s2 g2, is 7.
  Topology t;
  const auto add = [&](VertexKind k, const std::string& name, int node) {
    VertexProps p;
    p.kind = k;
    p.name = name;
    p.node = node;
    return t.add_vertex(p);
  };
  const LinkSpec l{1e9, 1e-6, 0, 0};
  const Vertex g0 = add(VertexKind::gpu, "g0", 0), g2 = add(VertexKind::gpu, "g2", 2);
  const Vertex s0 = add(VertexKind::leaf, "s0", kNoNode), s2 = add(VertexKind::leaf, "s2", kNoNode);
  const Vertex c1 = add(VertexKind::spine, "c1", kNoNode), c2 = add(VertexKind::spine, "c2", kNoNode);
  const Vertex c3 = add(VertexKind::core, "c3", kNoNode), c4 = add(VertexKind::core, "c4", kNoNode);
  const Vertex a = add(VertexKind::nic, "n1a", 1), p = add(VertexKind::pcie_switch, "p1", 1),
               b = add(VertexKind::nic, "n1b", 1);
  t.add_link(g0, s0, l);
  t.add_link(g2, s2, l);
  t.add_link(s0, c1, l);
  t.add_link(c1, c3, l);
  t.add_link(c3, c4, l);
  t.add_link(c4, c2, l);
  t.add_link(c2, s2, l);
  t.add_link(s0, a, l);
  t.add_link(a, p, l);
  t.add_link(p, b, l);
  t.add_link(b, s2, l);
  Router r(t, RouteMetric::hops);
  CHECK(r.distance(g0, g2) == 7);
  for (const Vertex v : r.vertices(g0, r.path(g0, g2))) CHECK(t.vertex(v).node != 1);
  // Server 1's own traffic may of course use its NICs.
  CHECK(r.distance(p, g2) == 3);
}
