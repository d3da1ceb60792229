// First-fit placement on a small fleet, against hand-worked expectations.
#include <catch2/catch.hpp>

#include "fleetwatt/sim/policies/scheduler.hpp"

using namespace fleetwatt::sim;

TEST_CASE("a single-server job goes to the lowest-numbered server with room", "[placement]") {
  Cluster c(3, 4);
  c.allocate(9, std::vector<GpuIndex>{0, 1, 2});  // server 0 has 1 free
  FirstFitPlacement ff;
  CHECK(*ff.place(c, 1) == Placement{3});
  CHECK(*ff.place(c, 2) == Placement{4, 5});
}

TEST_CASE("a job that fits one server is not split across servers", "[placement]") {
  Cluster c(2, 4);
  c.allocate(9, std::vector<GpuIndex>{0, 1});
  c.allocate(8, std::vector<GpuIndex>{4, 5});
  FirstFitPlacement ff;
  CHECK_FALSE(ff.place(c, 3).has_value());  // 4 GPUs free in all, but no server has 3
}

TEST_CASE("a multi-server job takes whole free servers first", "[placement]") {
  Cluster c(4, 4);
  c.allocate(9, std::vector<GpuIndex>{0});  // server 0: 3 free; servers 1..3: 4 free
  FirstFitPlacement ff;
  auto p = ff.place(c, 10);
  REQUIRE(p);
  // Two whole servers (1 and 2), then 2 GPUs from the lowest server with room (server 0).
  CHECK(*p == Placement{1, 2, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK_FALSE(ff.place(c, 16).has_value());
}
