// The leaf-spine kind: bisection bandwidth under oversubscription in closed form, racks, and the leaves
// chosen for a fleet.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "fabric_test_support.hpp"
#include "fleetwatt/topologies/fabrics/leaf_spine.hpp"

using namespace fleetwatt::topologies;
using namespace fleetwatt::topologies::test;

TEST_CASE("leaf-spine bisection bandwidth with oversubscription r is L/2 * H * b / r") {
  const double r = GENERATE(1.0, 2.0, 4.0);
  auto c = one_gpu_nodes("leaf_spine");
  c.leaves = 4;
  c.spines = 2;
  c.hosts_per_leaf = 4;
  c.oversubscription = r;
  const Topology t = build_topology(c, 16, 1);
  const double b = c.nic_link.bandwidth_Bps;
  const double closed_form = 4.0 / 2.0 * 4.0 * b / r;
  CHECK(bisection_bandwidth_Bps(t, nics(t, 0, 8), nics(t, 8, 16)) == Approx(closed_form));
  CHECK(t.rack_of_node(5) == 1);
}

TEST_CASE("a leaf-spine without leaves takes enough for the fleet") {
  auto c = one_gpu_nodes("leaf_spine");
  c.hosts_per_leaf = 4;
  const Topology t = build_topology(c, 9, 1);  // ceil(9 / 4) = 3 leaves
  CHECK(t.count(VertexKind::leaf) == 3);
  CHECK(t.count(VertexKind::spine) == c.spines);
}
