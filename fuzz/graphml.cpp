// Fuzz target: the GraphML topology reader (Boost.Graph's parser, then fleetwatt's checks).
#include <sstream>

#include "fleetwatt/topologies/graph/graph_io.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  fuzz::expect_input_errors([&] { (void)topologies::read_graphml(in, "topology.graphml"); });
  return 0;
}
