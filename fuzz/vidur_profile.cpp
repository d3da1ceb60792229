// Fuzz target: one of Vidur's layer profiles (vidur-mlsys24's compute/<gpu>/<org>/<model>/mlp.csv), and the
// serving layer's prediction of every row it reads: finite and positive.
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "fleetwatt/models/fit/vidur_layers.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  fuzz::expect_input_errors([&] {
    const auto rows = models::read_vidur_profile(in, "mlp.csv", "h100-sxm", "fuzzed");
    const models::VidurLayerCheck check = models::check_vidur_layers(rows);
    for (const auto& p : check.predicted)
      if (!(std::isfinite(p.gemm_s) && p.gemm_s > 0.0 && std::isfinite(p.elementwise_s) &&
            p.elementwise_s > 0.0))
        std::abort();
  });
  return 0;
}
