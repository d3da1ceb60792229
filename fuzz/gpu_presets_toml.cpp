// Fuzz target: GPU preset files ([[gpu]] tables, models/data/gpu_presets.toml and users' own).
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  fuzz::expect_input_errors([&] { (void)models::parse_gpu_presets(fuzz::as_text(data, size), "gpus.toml"); });
  return 0;
}
