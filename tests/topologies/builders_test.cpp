// Topology generators against their closed forms: switch and host counts, bisection bandwidth, hop counts.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "fleetwatt/topologies/analysis.hpp"
#include "fleetwatt/topologies/builders.hpp"
#include "fleetwatt/topologies/routing.hpp"
#include "fleetwatt/topologies/topology_config.hpp"

using namespace fleetwatt::topologies;

namespace {

std::size_t switches(const Topology& t) {
  return t.count(VertexKind::leaf) + t.count(VertexKind::spine) + t.count(VertexKind::core);
}

/// NIC vertices of the given nodes (one NIC each in these tests).
std::vector<Vertex> nics(const Topology& t, std::uint32_t first, std::uint32_t last) {
  std::vector<Vertex> out;
  for (std::uint32_t n = first; n < last; ++n)
    for (const Vertex v : t.nics_of(n)) out.push_back(v);
  return out;
}

TopologyConfig one_gpu_nodes(FabricKind kind) {
  TopologyConfig c;
  c.kind = kind;
  c.storage.servers = 0;
  return c;
}

}  // namespace

TEST_CASE("a k = 4 fat-tree has 16 hosts and 20 switches") {
  // Al-Fares et al. (SIGCOMM 2008): k^3/4 hosts, k^2/4 core + k^2 pod switches = 5k^2/4 switches.
  Topology t;
  const auto ports = build_fat_tree(t, 4, FabricSpec{});
  CHECK(ports.host_ports.size() == 16);
  CHECK(switches(t) == 20);
  CHECK(t.count(VertexKind::core) == 4);
  CHECK(t.link_count() == 32);  // k^3/4 edge-aggregation + k^3/4 aggregation-core links
}

TEST_CASE("a k = 8 fat-tree has 128 hosts and 80 switches") {
  Topology t;
  const auto ports = build_fat_tree(t, 8, FabricSpec{});
  CHECK(ports.host_ports.size() == 8 * 8 * 8 / 4);
  CHECK(switches(t) == 5 * 8 * 8 / 4);
}

TEST_CASE("a fat-tree has full bisection bandwidth") {
  // Half the hosts (pods 0-1) can send to the other half at k^3/8 host links' worth.
  auto c = one_gpu_nodes(FabricKind::fat_tree);
  c.k = 4;
  const Topology t = build_topology(c, 16, 1);
  const double b = c.nic_link.bandwidth_Bps;
  CHECK(bisection_bandwidth_Bps(t, nics(t, 0, 8), nics(t, 8, 16)) == Approx(8 * b));
}

TEST_CASE("leaf-spine bisection bandwidth with oversubscription r is L/2 * H * b / r") {
  const double r = GENERATE(1.0, 2.0, 4.0);
  auto c = one_gpu_nodes(FabricKind::leaf_spine);
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

TEST_CASE(
    "hop counts between NICs in a k = 4 fat-tree are 2, 4 and 6 for same rack, same pod and other pod") {
  auto c = one_gpu_nodes(FabricKind::fat_tree);
  c.k = 4;
  const Topology t = build_topology(c, 16, 1);
  Router r(t, RouteMetric::hops);
  const auto nic = [&](std::uint32_t n) { return t.nics_of(n).front(); };
  CHECK(r.distance(nic(0), nic(1)) == 2);  // same edge switch
  CHECK(r.distance(nic(0), nic(2)) == 4);  // same pod, other edge switch
  CHECK(r.distance(nic(0), nic(4)) == 6);  // other pod, through a core switch
  // Between pods there are (k/2)^2 = 4 equal paths, one per core switch.
  CHECK(r.path_count(nic(0), nic(4)) == 4);
  // GPU to GPU adds GPU -> PCIe switch -> NIC on both ends.
  CHECK(r.distance(t.gpus()[0], t.gpus()[4]) == 10);
}

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

TEST_CASE("tori and rings wrap around") {
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

  Topology ring;
  build_ring(ring, 6, 1, FabricSpec{});
  CHECK(ring.link_count() == 6);
  Router rr(ring, RouteMetric::hops);
  CHECK(rr.distance(*ring.find("r0"), *ring.find("r3")) == 3);
}

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
