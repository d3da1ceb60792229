// Fuzz target: the Alibaba GPU 2023 openb_pod_list CSV trace reader.
#include "trace_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fleetwatt::fuzz::fuzz_trace(fleetwatt::jobs::TraceFormat::alibaba2023, data, size);
}
