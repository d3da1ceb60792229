// Fuzz target: the predictor fit file (models/data/predictor_fit.toml and users' refits of it).
#include "fleetwatt/models/fit/predictor_fit.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  fuzz::expect_input_errors(
      [&] { (void)models::parse_predictor_fit(fuzz::as_text(data, size), "fit.toml"); });
  return 0;
}
