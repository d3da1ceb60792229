// LLM inference request traces: the Azure 2023, Mooncake and plain readers, their registry, and rate scaling
// and repetition (see the header).
#include "fleetwatt/jobs/request_trace.hpp"
#include "fleetwatt/jobs/request_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/timestamp.hpp"

namespace fleetwatt::jobs {
namespace {

using core::TraceFormatError;

constexpr std::int64_t kMaxTokens = std::numeric_limits<std::uint32_t>::max();

/// A CSV of requests: the time column read by `time`, the token columns by name.
template <class Time>
std::vector<Request> read_csv(std::istream& in, const std::string& name, const char* time_col,
                              const char* input_col, const char* output_col, Time time) {
  core::CsvReader csv(in, name);
  csv.read_header({time_col, input_col, output_col});
  std::vector<Request> out;
  while (const auto row = csv.next()) {
    Request r;
    r.arrival_s = time(csv, *row);
    r.input_tokens = static_cast<std::uint32_t>(csv.integer(*row, input_col, 1, kMaxTokens));
    r.output_tokens = static_cast<std::uint32_t>(csv.integer(*row, output_col, 1, kMaxTokens));
    r.record = row->line;
    out.push_back(r);
  }
  return out;
}

std::vector<Request> read_azure2023(std::istream& in, const std::string& name) {
  return read_csv(in, name, "TIMESTAMP", "ContextTokens", "GeneratedTokens",
                  [](const core::CsvReader& csv, const core::CsvRow& row) {
                    const std::string& text = csv.text(row, "TIMESTAMP");
                    const auto t = core::parse_timestamp(text);
                    if (!t)
                      throw TraceFormatError(csv.where(row, *csv.column("TIMESTAMP")), "TIMESTAMP",
                                             fmt::format("'{}' is not a date and time", text));
                    return *t;
                  });
}

std::vector<Request> read_plain(std::istream& in, const std::string& name) {
  return read_csv(in, name, "time_s", "input_tokens", "output_tokens",
                  [](const core::CsvReader& csv, const core::CsvRow& row) {
                    const double t = csv.number(row, "time_s");
                    if (!(t >= 0.0))
                      throw TraceFormatError(csv.where(row, *csv.column("time_s")), "time_s",
                                             fmt::format("must not be negative, not {}", t));
                    return t;
                  });
}

std::vector<Request> read_mooncake(std::istream& in, const std::string& name) {
  std::vector<Request> out;
  std::string line;
  std::uint32_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const core::SourceLocation where{name, number, 0};
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw TraceFormatError(where, "json", fmt::format("not a JSON object: {}", e.what()));
    }
    if (!j.is_object()) throw TraceFormatError(where, "json", "not a JSON object");
    const auto field = [&](const char* key, double lo, double hi) {
      const auto it = j.find(key);
      if (it == j.end() || !it->is_number()) throw TraceFormatError(where, key, "missing, or not a number");
      const double v = it->get<double>();
      if (!(v >= lo && v <= hi) || (std::string_view(key) != "timestamp" && v != std::floor(v)))
        throw TraceFormatError(where, key, fmt::format("{} is out of range", v));
      return v;
    };
    Request r;
    r.arrival_s = field("timestamp", 0.0, 1e15) / 1e3;
    r.input_tokens = static_cast<std::uint32_t>(field("input_length", 1.0, double(kMaxTokens)));
    r.output_tokens = static_cast<std::uint32_t>(field("output_length", 1.0, double(kMaxTokens)));
    r.record = number;
    out.push_back(r);
  }
  return out;
}

/// The format whose header (or first record) the first line is; nullptr when none.
const RequestTraceFormats::Entry* detect(const std::string& first) {
  const auto& formats = request_trace_formats();
  if (first.rfind("TIMESTAMP,", 0) == 0) return formats.find("azure2023");
  if (first.rfind("time_s,", 0) == 0) return formats.find("plain");
  if (first.find('{') != std::string::npos && first.find("input_length") != std::string::npos)
    return formats.find("mooncake");
  return nullptr;
}

}  // namespace

const RequestTraceFormats& request_trace_formats() {
  static const RequestTraceFormats formats(
      "request trace format",
      {{"azure2023",
        "Azure LLM inference trace 2023 (Splitwise, ISCA 2024): TIMESTAMP,ContextTokens,GeneratedTokens",
        {},
        read_azure2023},
       {"mooncake",
        "Mooncake (FAST 2025) JSON lines: timestamp (ms), input_length, output_length",
        {},
        read_mooncake},
       {"plain", "CSV time_s,input_tokens,output_tokens", {}, read_plain}});
  return formats;
}

RequestTrace read_request_trace(std::istream& in, const std::string& name) {
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  const std::string first = text.substr(0, text.find('\n'));
  const auto* format = detect(first);
  if (format == nullptr)
    throw TraceFormatError({name, 1, 1}, "header",
                           fmt::format("not a request trace of a known format ({}): its first line is '{}'",
                                       request_trace_formats().names(), first.substr(0, 80)));
  std::istringstream body(text);
  RequestTrace trace;
  trace.name = name;
  trace.format = format->name;
  trace.requests = format->make(body, name);
  if (trace.requests.empty()) throw TraceFormatError({name, 1, 1}, "requests", "the trace holds no request");
  std::stable_sort(trace.requests.begin(), trace.requests.end(),
                   [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
  const double start = trace.requests.front().arrival_s;
  for (Request& r : trace.requests) r.arrival_s -= start;
  trace.clock_start_s = start;
  trace.dated = trace.format == "azure2023";  // its TIMESTAMP column holds dates and times
  return trace;
}

RequestTrace read_request_trace(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw TraceFormatError({file.string(), 0, 0}, "file", "cannot open the request trace");
  return read_request_trace(in, file.string());
}

RequestTrace scale_and_fill(const RequestTrace& trace, double rate_scale, double horizon_s) {
  TraceReplay replay(trace, rate_scale, horizon_s);
  RequestTrace out;
  out.name = trace.name, out.format = trace.format;
  out.requests = collect(replay);
  return out;
}

bool RequestList::next(Request& out) {
  if (next_ >= requests_.size()) return false;
  out = requests_[next_++];
  return true;
}

TraceReplay::TraceReplay(const RequestTrace& trace, double rate_scale, double horizon_s)
    : trace_(trace), rate_scale_(rate_scale), horizon_s_(horizon_s) {
  if (!(rate_scale > 0.0) || !std::isfinite(rate_scale))
    throw std::invalid_argument(fmt::format("rate scale must be positive, not {}", rate_scale));
  const std::size_t n = trace.requests.size();
  if (!(horizon_s > 0.0) || n == 0) return;
  const double span = trace.span_s() / rate_scale;
  if (n > 1 && !(span > 0.0))
    throw std::invalid_argument(
        "a trace whose requests all arrive at one instant cannot be repeated to a horizon");
  // Each copy shifted by the scaled span plus the mean gap, so the rate holds across the seam; one request
  // alone repeats every second.
  period_ = n > 1 ? span + span / static_cast<double>(n - 1) : 1.0;
}

bool TraceReplay::next(Request& out) {
  const auto& requests = trace_.requests;
  if (requests.empty()) return false;
  if (next_ == requests.size()) {
    if (!(horizon_s_ > 0.0)) return false;  // played once
    next_ = 0;
    shift_ += period_;
  }
  out = requests[next_];
  out.arrival_s = out.arrival_s / rate_scale_ + shift_;
  if (horizon_s_ > 0.0 && out.arrival_s >= horizon_s_) {
    next_ = requests.size(), horizon_s_ = 0.0;  // past the horizon: nothing more
    shift_ = 0.0;
    return false;
  }
  ++next_;
  return true;
}

std::vector<Request> collect(RequestSource& source) {
  std::vector<Request> out;
  Request r;
  while (source.next(r)) out.push_back(r);
  return out;
}

}  // namespace fleetwatt::jobs
