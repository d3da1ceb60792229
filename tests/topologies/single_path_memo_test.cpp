// The memo of single-path routes: what is kept is found, by its ordered pair; past capacity it starts again.
#include <catch2/catch.hpp>

#include "fleetwatt/topologies/fabrics/topology_config.hpp"
#include "fleetwatt/topologies/graph/routing.hpp"
#include "fleetwatt/topologies/graph/single_path_memo.hpp"

using namespace fleetwatt::topologies;

TEST_CASE("a kept route is found by its ordered pair with its latency, another pair is not") {
  SinglePathMemo memo(8);
  const std::vector<DirectedLink> route{4, 9, 2};
  memo.keep(1, 2, route, 3.5e-6);
  std::vector<DirectedLink> out{77};  // found links are appended
  double latency = 0.0;
  REQUIRE(memo.find(1, 2, out, latency));
  CHECK(out == std::vector<DirectedLink>{77, 4, 9, 2});
  CHECK(latency == 3.5e-6);
  CHECK_FALSE(memo.find(2, 1, out, latency));
  CHECK_FALSE(memo.find(1, 3, out, latency));
  CHECK(out.size() == 4);
}

TEST_CASE("the memo grows its table as pairs come and empties itself past its capacity") {
  SinglePathMemo memo(3000);
  for (Vertex a = 0; a < 3000; ++a)
    memo.keep(a, a + 1, std::vector<DirectedLink>{static_cast<DirectedLink>(a)}, 1.0);
  CHECK(memo.size() == 3000);
  for (Vertex a = 0; a < 3000; ++a) {
    std::vector<DirectedLink> out;
    double latency = 0.0;
    REQUIRE(memo.find(a, a + 1, out, latency));
    CHECK(out == std::vector<DirectedLink>{static_cast<DirectedLink>(a)});
  }
  // Capacity rounds up to a power of two (4096): the 4097th pair starts a fresh memo holding itself alone.
  for (Vertex a = 3000; a < 4096; ++a) memo.keep(a, a + 1, std::vector<DirectedLink>{1}, 1.0);
  CHECK(memo.size() == 4096);
  memo.keep(9000, 9001, std::vector<DirectedLink>{5, 6}, 2.0);
  CHECK(memo.size() == 1);
  std::vector<DirectedLink> out;
  double latency = 0.0;
  CHECK_FALSE(memo.find(0, 1, out, latency));
  REQUIRE(memo.find(9000, 9001, out, latency));
  CHECK(out == std::vector<DirectedLink>{5, 6});
}

TEST_CASE("a router gives every pair the route a fresh router gives it, single path or not") {
  // A k = 4 fat-tree: GPUs of one server and servers under one edge switch have one shortest path (kept by
  // the memo after the first route), servers in different pods have four (never kept: the key chooses).
  TopologyConfig c;
  c.kind = "fat_tree";
  c.k = 4;
  c.storage.servers = 0;
  const Topology t = build_topology(c, 16, 2);
  Router warm(t, RouteMetric::hops);
  const auto& gpus = t.gpus();
  for (int round = 0; round < 2; ++round)
    for (std::size_t i = 0; i < gpus.size(); ++i)
      for (std::size_t j = 0; j < gpus.size(); ++j)
        for (std::uint64_t key = 0; key < 3; ++key) {
          if (i == j) continue;
          Router fresh(t, RouteMetric::hops);
          INFO("gpu " << i << " to gpu " << j << ", key " << key << ", round " << round);
          CHECK(warm.path(gpus[i], gpus[j], key) == fresh.path(gpus[i], gpus[j], key));
        }
}
