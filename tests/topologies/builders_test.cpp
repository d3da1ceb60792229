// What every topology is built from: a GPU server's internals (NVSwitch or PCIe). The fabric kinds have their
// tests in fabrics/.
#include <catch2/catch.hpp>

#include "fleetwatt/topologies/graph/builders.hpp"
#include "fleetwatt/topologies/graph/routing.hpp"

using namespace fleetwatt::topologies;

TEST_CASE("an NVSwitch node links GPUs through the switch and a PCIe node through its root complex") {
  Topology nv;
  NodeSpec spec;
  spec.gpus = 8;
  spec.nics = 4;
  const auto n = build_node(nv, 0, spec);
  CHECK(n.gpus.size() == 8);
  CHECK(n.nics.size() == 4);
  Router r(nv, RouteMetric::latency);
  const auto path = r.vertices(n.gpus[0], r.path(n.gpus[0], n.gpus[1]));
  REQUIRE(path.size() == 3);
  CHECK(nv.vertex(path[1]).kind == VertexKind::nvswitch);

  Topology pc;
  spec.fabric = NodeFabric::pcie;
  spec.gpus = 4;
  spec.nics = 1;
  const auto p = build_node(pc, 0, spec);
  Router rp(pc, RouteMetric::hops);
  CHECK(rp.distance(p.gpus[0], p.gpus[1]) == 2);  // same PCIe switch
  CHECK(rp.distance(p.gpus[0], p.gpus[2]) == 4);  // switch -> root -> switch
}
