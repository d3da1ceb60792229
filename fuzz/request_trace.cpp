// Fuzz target: LLM request traces in every format the reader detects (Azure 2023 CSV, Mooncake JSON lines,
// plain CSV), and rate scaling and repetition over what they read: arrivals sorted, from 0, within the
// horizon.
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "fleetwatt/jobs/request_trace.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fleetwatt;
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  fuzz::expect_input_errors([&] {
    const jobs::RequestTrace t = jobs::read_request_trace(in, "requests.csv");
    if (t.requests.empty() || t.requests.front().arrival_s != 0.0) std::abort();
    for (std::size_t i = 1; i < t.requests.size(); ++i)
      if (!(t.requests[i].arrival_s >= t.requests[i - 1].arrival_s)) std::abort();
    // A horizon of a few copies (bounded so that a trace of tiny span does not fill memory).
    const double horizon = std::min(3.0 * t.span_s() + 1.0, 1e6);
    if (t.requests.size() * (horizon / std::max(t.span_s(), 1e-3) + 2.0) > 1e6) return;
    try {
      const jobs::RequestTrace f = jobs::scale_and_fill(t, 2.5, horizon);
      for (const auto& r : f.requests)
        if (!(r.arrival_s >= 0.0 && r.arrival_s < horizon)) std::abort();
    } catch (const std::invalid_argument&) {
      // A trace whose requests all arrive at one instant cannot fill a horizon: refused, as documented.
    }
  });
  return 0;
}
