// Fuzz target: the weather CSV reader (dry bulb, wet bulb or humidity over time).
#include <sstream>

#include "fleetwatt/sim/power/weather.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  fuzz::expect_input_errors([&] { (void)sim::read_weather_csv(in, "weather.csv"); });
  return 0;
}
