// Fuzz target: the grid signal reader (carbon intensity, price) with its default column choice.
#include <sstream>

#include "fleetwatt/sim/power/grid_signal.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  fuzz::expect_input_errors([&] { (void)sim::read_grid_signal_csv(in, "signal.csv", {}); });
  return 0;
}
