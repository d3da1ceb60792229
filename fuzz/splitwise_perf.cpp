// Fuzz target: SplitwiseSim's performance-model CSV (measured LLM serving), and the serving check over what
// it reads: every prediction finite and positive.
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "fleetwatt/models/fit/serving_check.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  fuzz::expect_input_errors([&] {
    const auto rows = models::read_splitwise_perf(in, "perf_model.csv");
    const models::ServingCheck check = models::check_serving(rows);
    for (const auto& p : check.predicted)
      if (!(std::isfinite(p.prompt_s) && p.prompt_s > 0.0 && std::isfinite(p.token_s) && p.token_s > 0.0 &&
            std::isfinite(p.power_fraction)))
        std::abort();
  });
  return 0;
}
