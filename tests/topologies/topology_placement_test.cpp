// Rack-aware placement: pack, spread and topology-aware best fit on a small cluster with known racks.
#include <catch2/catch.hpp>

#include <set>

#include "fleetwatt/sim/policies/topology_placement.hpp"

using namespace fleetwatt::sim;

namespace {
std::set<NodeIndex> nodes_of(const Cluster& c, const Placement& p) {
  std::set<NodeIndex> s;
  for (auto g : p) s.insert(c.node_of(g));
  return s;
}
std::set<std::uint32_t> racks_of(const Cluster& c, const Placement& p, std::uint32_t per_rack) {
  std::set<std::uint32_t> s;
  for (auto g : p) s.insert(c.node_of(g) / per_rack);
  return s;
}
}  // namespace

TEST_CASE("pack uses the fewest servers, then the fewest racks") {
  // 8 servers of 4 GPUs, 4 servers per rack. Server 1 (rack 0) is half used; rack 1 is wholly free.
  Cluster c(8, 4);
  c.allocate(0, std::vector<GpuIndex>{4, 5});
  PackPlacement pack(4);
  // 2 GPUs: the tightest server with room (server 1's two free GPUs).
  CHECK(nodes_of(c, *pack.place(c, 2)) == std::set<NodeIndex>{1});
  // 12 GPUs = 3 whole servers, all from rack 1 (4 whole free servers) rather than rack 0 (3).
  const auto p = *pack.place(c, 12);
  CHECK(p.size() == 12);
  CHECK(nodes_of(c, p).size() == 3);
  CHECK(racks_of(c, p, 4) == std::set<std::uint32_t>{1});
  // 14 GPUs: 3 whole servers plus 2 more from the tightest server, preferring the chosen rack.
  const auto q = *pack.place(c, 14);
  CHECK(nodes_of(c, q).size() == 4);
  CHECK(racks_of(c, q, 4) == std::set<std::uint32_t>{1});
}

TEST_CASE("spread takes one GPU per server, alternating racks") {
  Cluster c(8, 4);
  SpreadPlacement spread(4);
  const auto p = *spread.place(c, 8);
  CHECK(nodes_of(c, p).size() == 8);
  CHECK(racks_of(c, p, 4).size() == 2);
  const auto q = *spread.place(c, 2);
  CHECK(racks_of(c, q, 4).size() == 2);
}

TEST_CASE("topology-aware best fit picks the rack whose free GPUs fit most tightly") {
  // Servers 0 and 1 full, server 2 half used: rack 0 has 2 + 4 = 6 free GPUs, rack 1 has 16.
  Cluster c(8, 4);
  c.allocate(0, std::vector<GpuIndex>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  TopologyAwarePlacement ta(4);
  // A 6-GPU job fits rack 0 exactly (pack would open a whole server of rack 1 instead).
  const auto p = *ta.place(c, 6);
  CHECK(racks_of(c, p, 4) == std::set<std::uint32_t>{0});
  // A job larger than any rack's free GPUs spans the fewest racks, fullest first.
  const auto q = *ta.place(c, 20);
  CHECK(q.size() == 20);
  CHECK(racks_of(c, q, 4).size() == 2);
}

TEST_CASE("rack-aware policies refuse what cannot fit and take racks from the topology") {
  Cluster c(4, 2);
  PackPlacement pack(2);
  CHECK_FALSE(pack.place(c, 9).has_value());
  SpreadPlacement spread(1);
  spread.set_racks({0, 0, 1, 1});  // the topology says two servers per rack
  const auto p = *spread.place(c, 2);
  CHECK(racks_of(c, p, 2).size() == 2);
}
