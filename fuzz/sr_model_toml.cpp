// Fuzz target: the fitted symbolic-regression model file (`fleetwatt fit -o`, `sr_model` in scenarios).
#include "fleetwatt/models/fit/sr_model.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  fuzz::expect_input_errors(
      [&] { (void)models::fit::parse_sr_model(fuzz::as_text(data, size), "model.toml"); });
  return 0;
}
