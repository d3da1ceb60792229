// The dragonfly kind against Kim et al. (ISCA 2008): the canonical dragonfly's global links and diameter,
// and the groups chosen for a fleet.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "fabric_test_support.hpp"
#include "fleetwatt/topologies/fabrics/dragonfly.hpp"

using namespace fleetwatt::topologies;
using namespace fleetwatt::topologies::test;

TEST_CASE("a canonical dragonfly joins every pair of groups by exactly one global link") {
  // Kim et al. (ISCA 2008): g = a*h + 1 groups of a routers with h global links each.
  const std::uint32_t a = 4, h = 2, groups = a * h + 1;
  Topology t;
  const auto ports = build_dragonfly(t, groups, a, 1, h, FabricSpec{});
  CHECK(ports.host_ports.size() == groups * a);
  const std::size_t local = groups * a * (a - 1) / 2;
  CHECK(t.link_count() == local + groups * (groups - 1) / 2);
  // Any router reaches any other in at most local + global + local = 3 hops.
  Router r(t, RouteMetric::hops);
  const auto routers = t.vertices_of(VertexKind::leaf);
  double diameter = 0;
  for (const Vertex x : routers)
    for (const Vertex y : routers) diameter = std::max(diameter, r.distance(x, y));
  CHECK(diameter == 3);
}

TEST_CASE("a dragonfly without groups takes enough for the fleet") {
  auto c = one_gpu_nodes("dragonfly");
  c.routers_per_group = 2;
  c.hosts_per_router = 2;
  const Topology t = build_topology(c, 9, 1);  // 4 servers a group: ceil(9 / 4) = 3 groups of 2 routers
  CHECK(t.count(VertexKind::leaf) == 6);
}
