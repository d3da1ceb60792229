// Shortest paths by hops and by latency, and deterministic equal-cost multipath.
#include <catch2/catch.hpp>

#include <set>

#include "fleetwatt/topologies/routing.hpp"
#include "fleetwatt/topologies/topology_config.hpp"

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

TEST_CASE("the latency metric takes a longer but faster path; the hop metric the shorter one") {
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
  c.kind = FabricKind::fat_tree;
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
