// Recorded LLM inference requests as a serving workload: each request's arrival and its prompt and generated
// token counts. Formats (a registry, as job traces have, so `fleetwatt list` and the docs name them):
//  - azure2023: the Azure LLM inference trace 2023 (Patel et al., "Splitwise", ISCA 2024; CC-BY 4.0):
//    TIMESTAMP (date and time), ContextTokens, GeneratedTokens;
//  - mooncake: Mooncake's JSON-lines traces (Qin et al., "Mooncake", FAST 2025): one object per line with
//    timestamp (ms from the trace's start), input_length, output_length;
//  - plain: CSV time_s,input_tokens,output_tokens.
// The format is told by the file's first line. Times become seconds from the first request; a trace may
// then be run faster or slower (its rate scaled) and repeated to fill a horizon. A bad record is a
// TraceFormatError naming file, line, column (or record) and field.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/registry.hpp"

namespace fleetwatt::jobs {

/// One request.
struct Request {
  double arrival_s = 0.0;  ///< seconds from the trace's first request
  std::uint32_t input_tokens = 0;
  std::uint32_t output_tokens = 0;
  std::uint32_t record = 0;  ///< line of the file it came from (its location in messages)
};

struct RequestTrace {
  std::string name;               ///< the file it was read from
  std::string format;             ///< the format's registry name
  std::vector<Request> requests;  ///< in arrival order (ties in file order)
  /// The first request's time on the file's own clock, s, before times were taken from it; `dated`: that
  /// clock is a date and time (azure2023: seconds since 1970-01-01 UTC), so it tells the hour of the day.
  double clock_start_s = 0.0;
  bool dated = false;
  [[nodiscard]] double span_s() const noexcept {
    return requests.empty() ? 0.0 : requests.back().arrival_s - requests.front().arrival_s;
  }
};

/// A format's reader: the stream's requests on the file's own clock (seconds), unsorted.
using RequestTraceParser = std::vector<Request> (*)(std::istream& in, const std::string& name);
using RequestTraceFormats = core::Registry<RequestTraceParser>;
/// Every request trace format.
[[nodiscard]] const RequestTraceFormats& request_trace_formats();

/// Reads a request trace, its format told by its first line; times from the first request, sorted (ties
/// keep file order). Throws core::TraceFormatError (file:line:column: field) for a bad record, an empty
/// trace or a first line of no known format.
[[nodiscard]] RequestTrace read_request_trace(std::istream& in, const std::string& name);
[[nodiscard]] RequestTrace read_request_trace(const std::filesystem::path& file);

/// The trace at `rate_scale` times its rate (arrivals at t / rate_scale) and, when `horizon_s` > 0,
/// repeated back to back until the horizon (each copy shifted by the scaled span plus the mean gap between
/// requests, so the rate holds across the seam; a single request every second) and cut at it. Throws
/// std::invalid_argument for a rate_scale that is not positive and finite, or for filling a horizon with
/// a trace of several requests that all arrive at one instant.
[[nodiscard]] RequestTrace scale_and_fill(const RequestTrace& trace, double rate_scale, double horizon_s);

}  // namespace fleetwatt::jobs
