// GPU ownership: allocation, release, free counts, and refusal of double booking.
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"

using namespace fleetwatt::sim;

namespace {
std::vector<NodeIndex> members(const NodeSet& s) {
  return {s.begin(), s.end()};
}
}  // namespace

TEST_CASE("a node set walks its members in ascending order through inserts and erases", "[cluster]") {
  // Against std::set, over 300 nodes (five words, the last partial): inserts, erases of members and of
  // non-members, repeated inserts, and a set emptied and refilled from its top word.
  NodeSet s(300);
  std::set<NodeIndex> ref;
  CHECK(s.empty());
  CHECK(s.begin() == s.end());
  std::uint64_t x = 12345;
  for (int i = 0; i < 5000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto n = static_cast<NodeIndex>((x >> 33) % 300);
    if ((x >> 20) % 3 == 0) {
      s.erase(n);
      ref.erase(n);
    } else {
      s.insert(n);
      ref.insert(n);
    }
    if (i % 97 == 0) REQUIRE(members(s) == std::vector<NodeIndex>(ref.begin(), ref.end()));
  }
  CHECK(members(s) == std::vector<NodeIndex>(ref.begin(), ref.end()));
  CHECK(s.size() == ref.size());
  for (const NodeIndex n : ref) s.erase(n);
  CHECK(s.empty());
  CHECK(members(s).empty());
  s.insert(299);
  s.insert(64);
  s.insert(63);
  CHECK(members(s) == std::vector<NodeIndex>{63, 64, 299});
  CHECK(s.contains(64));
  CHECK_FALSE(s.contains(65));
}

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

TEST_CASE("a node's first free GPUs are appended in ascending order, no more than it has", "[cluster]") {
  Cluster c(2, 4);
  c.allocate(0, std::vector<GpuIndex>{1, 3});  // node 0: GPUs 0 and 2 free
  std::vector<GpuIndex> out{7};                // appended after what is there
  c.append_free_gpus(0, 1, out);
  CHECK(out == std::vector<GpuIndex>{7, 0});
  c.append_free_gpus(0, 4, out);  // asks for 4, the node has 2
  CHECK(out == std::vector<GpuIndex>{7, 0, 0, 2});
  out.clear();
  c.append_free_gpus(1, 3, out);
  CHECK(out == std::vector<GpuIndex>{4, 5, 6});
  c.append_free_gpus(1, 0, out);
  CHECK(out.size() == 3);
  CHECK(c.free_gpus_of(0) == std::vector<GpuIndex>{0, 2});  // the list it replaces in the placements
}

TEST_CASE("a GPU is never given to two jobs", "[cluster]") {
  Cluster c(1, 4);
  c.allocate(0, std::vector<GpuIndex>{1});
  CHECK_THROWS_AS(c.allocate(1, std::vector<GpuIndex>{0, 1}), fleetwatt::InvariantError);
  CHECK(c.owner(0) == kNoJob);  // the refused allocation changed nothing
  CHECK_THROWS_AS(c.release(1, std::vector<GpuIndex>{1}), fleetwatt::InvariantError);
}

TEST_CASE("a job's GPUs in any order leave every node in the bucket of its free count", "[cluster]") {
  // GPUs counted by runs on one server: runs that come back to a server, spread over several, and a
  // release in another order than the allocation must end where one GPU at a time would.
  Cluster c(3, 4);
  c.allocate(0, std::vector<GpuIndex>{0, 1, 4, 2, 8, 9, 10, 11});  // node 0 twice, node 2 whole
  CHECK(c.free_gpus() == 4);
  CHECK(c.free_gpus(0) == 1);
  CHECK(c.free_gpus(1) == 3);
  CHECK(c.free_gpus(2) == 0);
  CHECK(members(c.nodes_with_free(0)) == std::vector<NodeIndex>{2});
  CHECK(members(c.nodes_with_free(1)) == std::vector<NodeIndex>{0});
  CHECK(members(c.nodes_with_free(3)) == std::vector<NodeIndex>{1});
  CHECK(c.nodes_with_free(4).empty());
  c.release(0, std::vector<GpuIndex>{11, 2, 10, 4, 1, 9, 8, 0});
  CHECK(c.free_gpus() == 12);
  CHECK(members(c.nodes_with_free(4)) == std::vector<NodeIndex>{0, 1, 2});
  for (std::uint32_t k = 0; k < 4; ++k) CHECK(c.nodes_with_free(k).empty());
  // A GPU named twice in one release is refused at its second mention.
  c.allocate(1, std::vector<GpuIndex>{5});
  CHECK_THROWS_AS(c.release(1, std::vector<GpuIndex>{5, 5}), fleetwatt::InvariantError);
}
