// Fuzz target: the region loader ([[site]] tables), from text. Like scenario_toml, the file sits in a folder
// that does not exist, so a site's `scenario` file or any path it names fails to open as a missing file.
#include "fleetwatt/runs/region.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  fuzz::expect_input_errors([&] {
    (void)runs::parse_region(fuzz::as_text(data, size), "/nonexistent-fuzz/region.toml", {}, std::nullopt);
  });
  return 0;
}
