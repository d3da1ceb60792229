// The ring kind: a 1-D torus whose far side is half way round, and the routers chosen for a fleet.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "fabric_test_support.hpp"
#include "fleetwatt/topologies/fabrics/ring.hpp"

using namespace fleetwatt::topologies;
using namespace fleetwatt::topologies::test;

TEST_CASE("a ring wraps around") {
  Topology ring;
  build_ring(ring, 6, 1, FabricSpec{});
  CHECK(ring.link_count() == 6);
  Router rr(ring, RouteMetric::hops);
  CHECK(rr.distance(*ring.find("r0"), *ring.find("r3")) == 3);
}

TEST_CASE("a ring without routers has one per hosts_per_router servers") {
  auto c = one_gpu_nodes("ring");
  c.hosts_per_router = 2;
  const Topology t = build_topology(c, 7, 1);  // ceil(7 / 2) = 4 routers
  CHECK(t.count(VertexKind::leaf) == 4);
}
