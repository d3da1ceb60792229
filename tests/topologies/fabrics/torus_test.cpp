// The torus kind: wrap-around links and distances in 2 and 3 dimensions, and the square torus chosen for
// a fleet.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "fabric_test_support.hpp"
#include "fleetwatt/topologies/fabrics/torus.hpp"

using namespace fleetwatt::topologies;
using namespace fleetwatt::topologies::test;

TEST_CASE("tori wrap around in every dimension") {
  Topology t2;
  build_torus(t2, {4, 4}, 1, FabricSpec{});
  CHECK(t2.link_count() == 2 * 16);  // every router has degree 4
  Router r2(t2, RouteMetric::hops);
  const auto at = [&](std::uint32_t x, std::uint32_t y) { return *t2.find(fmt::format("r{}", x + 4 * y)); };
  CHECK(r2.distance(at(0, 0), at(3, 0)) == 1);  // wrap-around link
  CHECK(r2.distance(at(0, 0), at(2, 2)) == 4);  // the farthest point: 2 + 2

  Topology t3;
  build_torus(t3, {3, 3, 3}, 1, FabricSpec{});
  CHECK(t3.link_count() == 3 * 27);
}

TEST_CASE("a torus without dims is the smallest square that holds the fleet") {
  const Topology t = build_topology(one_gpu_nodes("torus"), 10, 1);  // ceil(sqrt(10)) = 4: 4 x 4 routers
  CHECK(t.count(VertexKind::leaf) == 16);
}
