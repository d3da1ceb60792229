// Fuzz target: the Standard Workload Format (SWF) trace reader.
#include "trace_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fleetwatt::fuzz::fuzz_trace(fleetwatt::jobs::TraceFormat::swf, data, size);
}
