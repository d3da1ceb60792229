// The fat-tree kind against Al-Fares et al. (SIGCOMM 2008): host and switch counts, full bisection
// bandwidth, hop counts and equal paths, and the radix chosen for a fleet.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "fabric_test_support.hpp"
#include "fleetwatt/topologies/fabrics/fat_tree.hpp"

using namespace fleetwatt::topologies;
using namespace fleetwatt::topologies::test;

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
  auto c = one_gpu_nodes("fat_tree");
  c.k = 4;
  const Topology t = build_topology(c, 16, 1);
  const double b = c.nic_link.bandwidth_Bps;
  CHECK(bisection_bandwidth_Bps(t, nics(t, 0, 8), nics(t, 8, 16)) == Approx(8 * b));
}

TEST_CASE(
    "hop counts between NICs in a k = 4 fat-tree are 2, 4 and 6 for same rack, same pod and other pod") {
  auto c = one_gpu_nodes("fat_tree");
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

TEST_CASE("a fat-tree without k takes the smallest even radix that holds the fleet") {
  // k^3/4 hosts: k = 2 holds 2, k = 4 holds 16, k = 6 holds 54.
  CHECK(smallest_fat_tree_k(1) == 2);
  CHECK(smallest_fat_tree_k(2) == 2);
  CHECK(smallest_fat_tree_k(3) == 4);
  CHECK(smallest_fat_tree_k(16) == 4);
  CHECK(smallest_fat_tree_k(17) == 6);
  const Topology t = build_topology(one_gpu_nodes("fat_tree"), 17, 1);
  CHECK(t.count(VertexKind::core) == 9);  // (k/2)^2 at k = 6
}
