// Fuzz target: the Alibaba PAI 2020 simulator CSV trace reader.
#include "trace_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fleetwatt::fuzz::fuzz_trace(fleetwatt::jobs::TraceFormat::pai2020_sim, data, size);
}
