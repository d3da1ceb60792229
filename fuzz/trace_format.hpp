// The fuzz targets of the single-stream trace formats share this body: read the input as a trace of one
// format, with the default options (malformed records skipped, counted and located).
#pragma once

#include <sstream>

#include "fleetwatt/jobs/trace.hpp"
#include "fuzz_support.hpp"

namespace fleetwatt::fuzz {

inline int fuzz_trace(jobs::TraceFormat format, const std::uint8_t* data, std::size_t size) {
  jobs::TraceOptions options;
  options.format = format;
  std::istringstream in{std::string(as_text(data, size))};
  expect_input_errors([&] { (void)jobs::read_trace(in, "fuzz-trace", options); });
  return 0;
}

}  // namespace fleetwatt::fuzz
