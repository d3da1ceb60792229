// The memo of source-server distances: found by shape and the exact bits of the attachments' distances;
// past capacity it starts again.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "fleetwatt/topologies/graph/source_side_memo.hpp"

using namespace fleetwatt::topologies;

namespace {
std::vector<double> found(const SourceSideMemo& memo, std::uint32_t shape, const std::vector<double>& key) {
  const auto kept = memo.find(shape, key);
  return kept ? std::vector<double>(kept->begin(), kept->end()) : std::vector<double>{};
}
}  // namespace

TEST_CASE("source distances are found by shape and the exact attachment distances") {
  SourceSideMemo memo(8);
  memo.keep(3, std::vector<double>{5.0, 7.0}, std::vector<double>{1.0, 2.0, 0.0});
  memo.keep(4, std::vector<double>{5.0, 7.0}, std::vector<double>{9.0});
  CHECK(found(memo, 3, {5.0, 7.0}) == std::vector<double>{1.0, 2.0, 0.0});
  CHECK(found(memo, 4, {5.0, 7.0}) == std::vector<double>{9.0});
  CHECK_FALSE(memo.find(3, std::vector<double>{7.0, 5.0}));  // the order is part of the key
  CHECK_FALSE(memo.find(3, std::vector<double>{5.0}));       // and the length
  CHECK_FALSE(memo.find(3, std::vector<double>{5.0, std::nextafter(7.0, 8.0)}));  // and every bit
  memo.keep(3, std::vector<double>{5.0, 7.0}, std::vector<double>{8.0});  // a key kept twice keeps the first
  CHECK(found(memo, 3, {5.0, 7.0}) == std::vector<double>{1.0, 2.0, 0.0});
  CHECK(memo.size() == 2);
}

TEST_CASE("the source memo empties itself past its capacity") {
  SourceSideMemo memo(5);  // rounds up to 8 keys
  for (int i = 0; i < 8; ++i)
    memo.keep(0, std::vector<double>{double(i)}, std::vector<double>{double(i) * 2});
  CHECK(memo.size() == 8);
  for (int i = 0; i < 8; ++i) CHECK(found(memo, 0, {double(i)}) == std::vector<double>{double(i) * 2});
  memo.keep(1, std::vector<double>{0.5}, std::vector<double>{4.0});
  CHECK(memo.size() == 1);
  CHECK_FALSE(memo.find(0, std::vector<double>{0.0}));
  CHECK(found(memo, 1, {0.5}) == std::vector<double>{4.0});
}
