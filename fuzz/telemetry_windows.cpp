// Fuzz target: a GPU recording's windows.csv (tools/scripts/make-telemetry-fixture.py), and the check of
// every window it reads against the models: every prediction finite.
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "fleetwatt/runs/telemetry_check.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  fuzz::expect_input_errors([&] {
    const auto windows = runs::read_telemetry_windows(in, "windows.csv");
    const runs::TelemetryCheck check = runs::check_telemetry(windows);
    for (const auto& row : check.rows)
      if (!(std::isfinite(row.predicted_s) && std::isfinite(row.predicted_W) && row.predicted_W >= 0.0))
        std::abort();
  });
  return 0;
}
