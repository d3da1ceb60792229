// Fuzz target: the Microsoft Philly cluster_job_log (JSON) trace reader.
#include "trace_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fleetwatt::fuzz::fuzz_trace(fleetwatt::jobs::TraceFormat::philly, data, size);
}
