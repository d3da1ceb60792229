// Fuzz target: the fleetwatt's own job table CSV trace reader.
#include "trace_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fleetwatt::fuzz::fuzz_trace(fleetwatt::jobs::TraceFormat::fleetwatt_csv, data, size);
}
