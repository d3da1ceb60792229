// GPU ownership: allocation, release, free counts, and refusal of double booking.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"

using namespace fleetwatt::sim;

TEST_CASE("allocation and release keep per-node free counts", "[cluster]") {
  Cluster c(3, 4);
  CHECK(c.gpus() == 12);
  c.allocate(0, std::vector<GpuIndex>{0, 1, 2});
  c.allocate(1, std::vector<GpuIndex>{5, 6});
  CHECK(c.free_gpus() == 7);
  CHECK(c.free_gpus(0) == 1);
  CHECK(c.free_gpus(1) == 2);
  CHECK(c.first_node_with_free(2) == 1);
  CHECK(c.first_node_with_free(1) == 0);
  CHECK(c.first_node_with_free(4) == 2);
  c.release(0, std::vector<GpuIndex>{0, 1, 2});
  CHECK(c.first_node_with_free(4) == 0);
  CHECK(c.owner(5) == 1);
  CHECK(c.owner(0) == kNoJob);
}

TEST_CASE("a GPU is never given to two jobs", "[cluster]") {
  Cluster c(1, 4);
  c.allocate(0, std::vector<GpuIndex>{1});
  CHECK_THROWS_AS(c.allocate(1, std::vector<GpuIndex>{0, 1}), fleetwatt::InvariantError);
  CHECK(c.owner(0) == kNoJob);  // the refused allocation changed nothing
  CHECK_THROWS_AS(c.release(1, std::vector<GpuIndex>{1}), fleetwatt::InvariantError);
}
