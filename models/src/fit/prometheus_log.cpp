// DCGM power logs in Prometheus's text exposition format, as `promtool tsdb dump` prints an operator's
// Prometheus data or a scrape with timestamps holds it: one sample per line,
//   DCGM_FI_DEV_POWER_USAGE{gpu="0",Hostname="node1",...} 312.45 1700000000123
// (metric, labels, value, milliseconds since 1970). The board power (DCGM_FI_DEV_POWER_USAGE, W) makes the
// power series; the SM activity (DCGM_FI_PROF_SM_ACTIVE, 0 to 1) rides along; other metrics are counted and
// skipped. A GPU is its `gpu` label; one log holds one machine (one Hostname).
#include "prometheus_log.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string_view>

#include "fleetwatt/core/checked_integer.hpp"
#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/time.hpp"

namespace fleetwatt::models::fit {

using core::SourceLocation;
using core::TraceFormatError;

namespace {

constexpr std::string_view kPowerMetric = "DCGM_FI_DEV_POWER_USAGE";
constexpr std::string_view kSmActiveMetric = "DCGM_FI_PROF_SM_ACTIVE";
/// The largest power a sample may read, in W (as the CSV reader's).
constexpr double kMaxPowerW = 1e6;

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

bool name_char(char c) {
  return name_start(c) || (c >= '0' && c <= '9');
}

/// One sample line taken apart; columns are 1-based, for messages.
struct Sample {
  std::string_view metric;
  std::string gpu, host;  ///< the `gpu` and `Hostname` labels' values ("" when absent)
  std::uint32_t labels_column = 0;
  std::string_view value;
  std::uint32_t value_column = 0;
  std::string_view stamp;
  std::uint32_t stamp_column = 0;
};

class LineParser {
 public:
  LineParser(std::string_view line, const std::string& source, std::uint32_t line_no)
      : s_(line), source_(source), line_(line_no) {}

  Sample parse() {
    Sample out;
    const std::size_t start = pos_;
    while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
    out.metric = s_.substr(start, pos_ - start);
    if (pos_ < s_.size() && s_[pos_] == '{') {
      out.labels_column = column();
      ++pos_;
      labels(out);
    }
    skip_blanks();
    out.value_column = column();
    out.value = word();
    skip_blanks();
    out.stamp_column = column();
    out.stamp = word();
    skip_blanks();
    if (pos_ < s_.size()) fail(column(), "record", "unexpected text after the timestamp");
    if (out.value.empty()) fail(out.value_column, std::string(out.metric), "the sample has no value");
    return out;
  }

 private:
  [[noreturn]] void fail(std::uint32_t column, const std::string& key, const std::string& what) const {
    throw TraceFormatError(SourceLocation{source_, line_, column}, key, what);
  }
  [[nodiscard]] std::uint32_t column() const { return static_cast<std::uint32_t>(pos_ + 1); }
  void skip_blanks() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  std::string_view word() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != ' ' && s_[pos_] != '\t') ++pos_;
    return s_.substr(start, pos_ - start);
  }
  void labels(Sample& out) {
    for (;;) {
      skip_blanks();
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return;
      }
      const std::uint32_t at = column();
      const std::size_t start = pos_;
      while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
      const std::string_view name = s_.substr(start, pos_ - start);
      if (name.empty() || pos_ >= s_.size() || s_[pos_] != '=')
        fail(at, "labels", "expected label=\"value\" in the braces");
      ++pos_;
      if (pos_ >= s_.size() || s_[pos_] != '"') fail(column(), std::string(name), "a label value is quoted");
      ++pos_;
      std::string value;
      for (;;) {
        if (pos_ >= s_.size()) fail(at, std::string(name), "the label value has no closing quote");
        const char c = s_[pos_++];
        if (c == '"') break;
        if (c == '\\' && pos_ < s_.size()) {
          const char e = s_[pos_++];
          value += e == 'n' ? '\n' : e;
        } else {
          value += c;
        }
      }
      if (name == "gpu") out.gpu = value;
      if (name == "Hostname") out.host = value;
      skip_blanks();
      if (pos_ < s_.size() && s_[pos_] == ',')
        ++pos_;
      else if (pos_ >= s_.size() || s_[pos_] != '}')
        fail(column(), "labels", "expected ',' or '}'");
    }
  }

  std::string_view s_;
  const std::string& source_;
  std::uint32_t line_;
  std::size_t pos_ = 0;
};

/// A value as Prometheus writes it: a number, or NaN and +/-Inf (no reading: skipped like nvidia-smi's
/// [N/A]).
std::optional<double> sample_value(std::string_view v, bool& missing) {
  missing = v == "NaN" || v == "+Inf" || v == "-Inf" || v == "Inf";
  return missing ? std::nullopt : core::parse_number(v);
}

}  // namespace

bool looks_like_prometheus(std::string_view first_line) {
  // A sample starts with a metric name followed by '{' or a blank; a CSV header's first name is followed by
  // its separator.
  std::size_t i = 0;
  if (first_line.empty() || !name_start(first_line[0])) return false;
  while (i < first_line.size() && name_char(first_line[i])) ++i;
  return i < first_line.size() && (first_line[i] == '{' || first_line[i] == ' ' || first_line[i] == '\t');
}

PowerTrace read_prometheus_power(std::string_view text, const std::string& source) {
  PowerTrace trace;
  trace.source = source;
  struct Point {
    std::int64_t ms;  ///< milliseconds since 1970
    double v;
    std::uint32_t line, column;  ///< of its timestamp
  };
  std::map<int, std::vector<Point>> power, sm;
  std::string host;
  std::uint32_t host_line = 0;
  std::uint32_t line_no = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    const Sample s = LineParser(line, source, line_no).parse();
    const bool is_power = s.metric == kPowerMetric, is_sm = s.metric == kSmActiveMetric;
    if (!is_power && !is_sm) {
      ++trace.report.other_samples;
      continue;
    }
    const std::string key(s.metric);
    if (is_power) ++trace.report.rows;  // a row is a power reading, as a CSV log's
    if (s.gpu.empty())
      throw TraceFormatError(SourceLocation{source, line_no, s.labels_column ? s.labels_column : 1}, "gpu",
                             key + " has no gpu label (dcgm-exporter writes gpu=\"0\")");
    const auto g = core::parse_integer(s.gpu);
    const auto gpu = g ? core::integer_in_range<int>(static_cast<double>(*g), 0) : std::nullopt;
    if (!gpu)
      throw TraceFormatError(SourceLocation{source, line_no, s.labels_column}, "gpu",
                             "gpu=\"" + s.gpu + "\" is not a GPU index");
    if (!s.host.empty()) {
      if (host.empty()) {
        host = s.host;
        host_line = line_no;
      } else if (s.host != host) {
        throw TraceFormatError(SourceLocation{source, line_no, s.labels_column}, "Hostname",
                               "Hostname=\"" + s.host + "\" after \"" + host + "\" (line " +
                                   std::to_string(host_line) +
                                   "): a log holds one machine; select one host's series");
      }
    }
    if (s.stamp.empty())
      throw TraceFormatError(
          SourceLocation{source, line_no, s.stamp_column}, "timestamp",
          "the sample has no timestamp (milliseconds since 1970); a scrape of dcgm-exporter "
          "has none: dump the series with `promtool tsdb dump` or a range query");
    const auto ms = core::parse_integer(s.stamp);
    if (!ms || *ms < 0)
      throw TraceFormatError(SourceLocation{source, line_no, s.stamp_column}, "timestamp",
                             "'" + std::string(s.stamp) + "' is not a time in milliseconds since 1970");
    const std::int64_t t = *ms;
    bool missing = false;
    const auto v = sample_value(s.value, missing);
    if (missing) {
      if (is_power) ++trace.report.missing_power;
      continue;
    }
    const double high = is_power ? kMaxPowerW : 1.0;
    if (!v || *v < 0.0 || *v > high)
      throw TraceFormatError(
          SourceLocation{source, line_no, s.value_column}, key,
          "'" + std::string(s.value) + "' is not " +
              (is_power ? std::string("a power in W (0 to 1e6)") : "an activity from 0 to 1"));
    auto& series = (is_power ? power : sm)[*gpu];
    if (!series.empty()) {  // its last kept sample: order and duplicates are checked against it
      if (t < series.back().ms)
        throw TraceFormatError(SourceLocation{source, line_no, s.stamp_column}, "timestamp",
                               "time runs backwards for GPU " + std::to_string(*gpu) + "'s " + key);
      if (t == series.back().ms) {
        if (is_power) ++trace.report.duplicated_times;
        continue;
      }
    }
    series.push_back({t, *v, line_no, s.stamp_column});
  }
  if (power.empty())
    throw TraceFormatError(SourceLocation{source, line_no, 0}, std::string(kPowerMetric),
                           "the log has no " + std::string(kPowerMetric) + " sample");
  // Dumps list one series after another: times are re-based to the earliest sample of any series (in whole
  // milliseconds, exactly), and a log spans at most the clock's input range.
  std::int64_t t0 = std::numeric_limits<std::int64_t>::max();
  for (const auto* m : {&power, &sm})
    for (const auto& [gpu, points] : *m) t0 = std::min(t0, points.front().ms);
  const auto seconds = [&](const Point& p) {
    const double t = static_cast<double>(p.ms - t0) / 1e3;
    if (t > core::kMaxInputSeconds)
      throw TraceFormatError(SourceLocation{source, p.line, p.column}, "timestamp",
                             "beyond the 1e9 s (31.7 years) a log may span from its first sample");
    return t;
  };
  for (const auto& [gpu, points] : power) {
    GpuPowerSeries s;
    s.index = gpu;
    for (const auto& p : points) {
      s.time_s.push_back(seconds(p));
      s.power_W.push_back(p.v);
    }
    if (const auto it = sm.find(gpu); it != sm.end())
      for (const auto& p : it->second) {
        s.sm_time_s.push_back(seconds(p));
        s.sm_active.push_back(p.v);
      }
    trace.gpus.push_back(std::move(s));
  }
  return trace;
}

}  // namespace fleetwatt::models::fit
