// Fuzz target: recorded GPU power logs, both layouts the reader detects (nvidia-smi CSV and plain
// time_s,power_W).
#include <sstream>

#include "fleetwatt/models/fit/telemetry.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  fuzz::expect_input_errors([&] { (void)models::fit::read_power_trace(in, "power.csv"); });
  return 0;
}
