// Fuzz target: recorded GPU power logs, both layouts the reader detects (nvidia-smi CSV and plain
// time_s,power_W), and the epochs found in what they read.
#include <cstdlib>
#include <sstream>

#include "fleetwatt/models/fit/epochs.hpp"
#include "fleetwatt/models/fit/telemetry.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  fuzz::expect_input_errors([&] {
    const models::fit::PowerTrace trace = models::fit::read_power_trace(in, "power.csv");
    for (const auto& gpu : trace.gpus) {
      const models::fit::EpochFinding f = models::fit::find_epochs(gpu);
      std::size_t epochs = 0;
      for (const auto& stage : f.stages) {
        if (!(stage.first < stage.end && stage.end <= gpu.power_W.size())) std::abort();
        epochs += stage.epochs;
      }
      if (epochs != f.epochs.size()) std::abort();
    }
  });
  return 0;
}
