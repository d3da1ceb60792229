// Every fabric kind's count (FabricSize) against the fabric it builds, and the size check that refuses a
// fabric too small for its fleet or far larger than it before anything is built.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "fabric_test_support.hpp"
#include "fleetwatt/topologies/fabrics/torus.hpp"

using namespace fleetwatt::topologies;
using namespace fleetwatt::topologies::test;

namespace {

struct Built {
  FabricSize counted;
  std::size_t switches = 0, links = 0, host_slots = 0;
};

/// `config`'s fabric for `nodes` servers counted by its kind's `size` and built alone by its `build`.
Built count_and_build(const TopologyConfig& config, std::uint32_t nodes) {
  const auto& kind = fabric_kinds().at(config.kind, config.where, "topology.kind");
  Built b;
  b.counted = kind.make.size(config, nodes);
  Topology topo;
  const NetworkPorts ports = kind.make(topo, config, nodes);
  b.switches = switches(topo);
  b.links = topo.link_count();
  b.host_slots = ports.host_ports.size();
  return b;
}

void check_exact(const TopologyConfig& config, std::uint32_t nodes) {
  const Built b = count_and_build(config, nodes);
  INFO(config.kind << " for " << nodes << " nodes");
  CHECK(b.counted.switches == static_cast<double>(b.switches));
  CHECK(b.counted.links == static_cast<double>(b.links));
  CHECK(b.counted.host_slots == static_cast<double>(b.host_slots));
}

}  // namespace

TEST_CASE("each kind counts the switches, links and host slots it builds") {
  for (const std::uint32_t nodes : {1u, 7u, 100u, 1000u}) {
    check_exact(one_gpu_nodes("fat_tree"), nodes);
    check_exact(one_gpu_nodes("leaf_spine"), nodes);
    check_exact(one_gpu_nodes("torus"), nodes);
    check_exact(one_gpu_nodes("ring"), nodes);
  }
  auto c = one_gpu_nodes("fat_tree");
  c.k = 8;  // 16 core, 32 aggregation, 32 edge switches; 128 + 128 links; 128 servers
  const Built f = count_and_build(c, 10);
  CHECK(f.switches == 80);
  CHECK(f.links == 256);
  CHECK(f.host_slots == 128);
  CHECK(f.counted.key == "k");
  check_exact(c, 10);

  auto t = one_gpu_nodes("torus");
  for (const auto& dims :
       std::vector<std::vector<std::uint32_t>>{{5}, {2}, {1}, {4, 2}, {3, 1, 2}, {3, 4, 5}}) {
    t.dims = dims;
    t.hosts_per_router = 2;
    check_exact(t, 1);
  }
  auto r = one_gpu_nodes("ring");
  r.routers = 2;  // one link, not two parallel ones
  check_exact(r, 1);

  auto l = one_gpu_nodes("leaf_spine");
  l.leaves = 6;
  l.spines = 3;
  l.hosts_per_leaf = 5;
  check_exact(l, 20);
}

TEST_CASE("a dragonfly's count is exact inside groups and bounds the global links") {
  auto d = one_gpu_nodes("dragonfly");
  // The canonical dragonfly: groups = routers x global links + 1, one link between every pair of groups.
  d.routers_per_group = 4;
  d.global_links = 2;
  d.groups = 9;
  check_exact(d, 1);
  const Built canonical = count_and_build(d, 1);
  CHECK(canonical.links == 9 * 6 + 9 * 8 / 2);  // 6 links in each group of 4, 36 pairs of groups
  // Fewer groups than ports: some global ports stay unused, so the count is an upper bound.
  for (const std::uint32_t groups : {1u, 2u, 3u, 5u}) {
    d.groups = groups;
    const Built b = count_and_build(d, 1);
    INFO(groups << " groups");
    CHECK(b.counted.switches == static_cast<double>(b.switches));
    CHECK(b.counted.host_slots == static_cast<double>(b.host_slots));
    CHECK(b.counted.links >= static_cast<double>(b.links));
    CHECK(b.links >= groups * 6);
  }
  d.groups = 0;  // the fewest groups that hold the fleet: 4 routers x 1 server a group
  check_exact(d, 1);
  CHECK(count_and_build(d, 13).counted.switches == 16);
}

TEST_CASE("a fabric far larger than its fleet is refused at the key that sizes it, before it is built") {
  // The fuzzer's finding: a 10 x 10^6 torus for one server, 10^7 routers and 2 x 10^7 links (2.7 s and
  // 820 MB for 10^6 routers in a Release build; over 28 s under ASan for this one).
  auto t = one_gpu_nodes("torus");
  t.dims = {10, 1'000'000};
  CHECK_THROWS_WITH(check_fabric_size(t, 1),
                    Catch::Contains("topology.dims") && Catch::Contains("1e+07 switches"));
  CHECK_THROWS_WITH(build_topology(t, 1, 1), Catch::Contains("topology.dims"));
  // Three dimensions of 10^6 exceed 2^32 routers: counted, not wrapped.
  t.dims = {1'000'000, 1'000'000, 1'000'000};
  CHECK_THROWS_WITH(check_fabric_size(t, 1), Catch::Contains("1e+18 switches"));
  Topology scratch;
  CHECK_THROWS_AS(build_torus(scratch, t.dims, 1, FabricSpec{}), std::invalid_argument);

  // The limit: 65,536 switches and links, or 32 a server. A ring of R > 2 routers holds R of each.
  auto r = one_gpu_nodes("ring");
  r.routers = 32'768;
  CHECK_NOTHROW(check_fabric_size(r, 1));
  r.routers = 32'769;
  CHECK_THROWS_WITH(check_fabric_size(r, 1), Catch::Contains("topology.routers"));
  r.routers = 65'536;  // 4,096 servers: 131,072 allowed
  CHECK_NOTHROW(check_fabric_size(r, 4096));
  r.routers = 65'537;
  CHECK_THROWS(check_fabric_size(r, 4096));

  // Products of keys within their own ranges: leaves x spines, a dragonfly's groups, a fat-tree's k^3.
  auto l = one_gpu_nodes("leaf_spine");
  l.leaves = 1'000;
  l.spines = 1'000;
  CHECK_THROWS_WITH(check_fabric_size(l, 1), Catch::Contains("topology.leaves"));
  auto d = one_gpu_nodes("dragonfly");
  d.routers_per_group = 1'000'000;
  CHECK_THROWS_WITH(check_fabric_size(d, 1), Catch::Contains("topology.routers_per_group"));
  auto f = one_gpu_nodes("fat_tree");
  f.k = 1'000;
  CHECK_THROWS_WITH(check_fabric_size(f, 1), Catch::Contains("topology.k"));
  f.k = 0;  // the smallest that fits is always accepted
  CHECK_NOTHROW(check_fabric_size(f, 100'000));
  // Storage servers count too (a server and its link each).
  f.storage.servers = 40'000;
  CHECK_THROWS_WITH(check_fabric_size(f, 1), Catch::Contains("topology.storage_servers"));
}

TEST_CASE("a fabric with fewer host slots than servers is refused before it is built") {
  auto f = one_gpu_nodes("fat_tree");
  f.k = 2;  // 2 servers
  CHECK_NOTHROW(check_fabric_size(f, 2));
  CHECK_THROWS_WITH(check_fabric_size(f, 3), Catch::Contains("topology.k") &&
                                                 Catch::Contains("2 host slots") &&
                                                 Catch::Contains("3 nodes"));
  auto t = one_gpu_nodes("torus");
  t.dims = {2, 2};
  t.hosts_per_router = 2;
  CHECK_THROWS_WITH(check_fabric_size(t, 9),
                    Catch::Contains("topology.dims") && Catch::Contains("8 host slots"));
}
