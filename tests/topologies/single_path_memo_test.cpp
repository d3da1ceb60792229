// The memo of single-path routes: what is kept is found, by its ordered pair; past capacity it starts again.
#include <catch2/catch.hpp>

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
