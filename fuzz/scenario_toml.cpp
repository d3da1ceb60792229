// Fuzz target: the scenario loader, from text. The scenario sits in a folder that does not exist, so a path
// it names (jobs CSV, trace, signal, weather) fails to open as it would for a user's missing file.
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  fuzz::expect_input_errors(
      [&] { (void)runs::parse_scenario(fuzz::as_text(data, size), "/nonexistent-fuzz/scenario.toml"); });
  return 0;
}
