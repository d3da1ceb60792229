// Power-log reader: header detection for nvidia-smi's two column styles, DCGM field columns and plain
// time/power CSV, unit stripping, per-GPU series and a report of the sampling's irregularities; a log in
// Prometheus's text format goes to prometheus_log.cpp. Records and timestamps are read
// by core's CSV tokenizer and date parser, so a log's "+02:00" offset is honoured like a trace's.
#include "fleetwatt/models/fit/telemetry.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "fleetwatt/core/checked_integer.hpp"
#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/time.hpp"
#include "fleetwatt/core/timestamp.hpp"
#include "prometheus_log.hpp"

namespace fleetwatt::models::fit {

using core::ConfigError;
using core::SourceLocation;
using core::TraceFormatError;

namespace {

/// The largest power a sample may read, in W: a megawatt, beyond any GPU's or node's draw.
constexpr double kMaxPowerW = 1e6;

/// Header name without its unit ("power.draw [W]" -> "power.draw"), lower case.
std::string header_key(std::string_view h) {
  if (const auto br = h.find('['); br != std::string_view::npos) h = h.substr(0, br);
  while (!h.empty() && (h.back() == ' ' || h.back() == '\t')) h.remove_suffix(1);
  return core::lower_case(h);
}

/// A number with nvidia-smi's unit after it ("72.36 W", "12 %", "8192 MiB") or none.
std::optional<double> parse_value(std::string_view s) {
  if (const auto sp = s.find(' '); sp != std::string_view::npos) s = s.substr(0, sp);
  return core::parse_number(s);
}

bool is_missing(std::string_view s) {
  return s.empty() || s == "[N/A]" || s == "N/A" || s == "[Not Supported]" || s == "nan";
}

/// Seconds of a timestamp (core's parser: nvidia-smi's "2023/02/20 08:38:16.296", ISO 8601 with its zone)
/// or a plain number of seconds.
std::optional<double> parse_time(std::string_view s) {
  if (auto t = core::parse_timestamp(s)) return t;
  return core::parse_number(s);
}

int find_column(const std::vector<std::string>& keys, std::initializer_list<std::string_view> names) {
  for (const auto name : names)
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

const GpuPowerSeries& PowerTrace::gpu(int index) const {
  std::string known;
  for (const auto& g : gpus) {
    if (g.index == index) return g;
    known += (known.empty() ? "" : ", ") + std::to_string(g.index);
  }
  throw ConfigError(SourceLocation{source, 0, 0}, "gpu",
                    "no GPU with index " + std::to_string(index) + " in the trace (it has: " + known + ")");
}

PowerTrace read_power_trace(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw TraceFormatError(SourceLocation{path.string(), 0, 0}, "file", "cannot open the power log");
  return read_power_trace(in, path.string());
}

namespace {

/// The first line that is neither blank nor a '#' comment.
std::string_view first_content_line(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string_view::npos && line[first] != '#') return line.substr(first);
    at = end + 1;
  }
  return {};
}

/// Sampling statistics over every GPU's intervals.
void report_sampling(PowerTrace& trace) {
  std::vector<double> intervals;
  for (const auto& s : trace.gpus)
    for (std::size_t i = 1; i < s.time_s.size(); ++i) intervals.push_back(s.time_s[i] - s.time_s[i - 1]);
  auto& r = trace.report;
  if (intervals.empty()) return;
  std::vector<double> sorted = intervals;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2),
                   sorted.end());
  r.median_interval_s = sorted[sorted.size() / 2];
  r.min_interval_s = *std::min_element(intervals.begin(), intervals.end());
  r.max_interval_s = *std::max_element(intervals.begin(), intervals.end());
  for (const double dt : intervals) {
    if (dt > 3.0 * r.median_interval_s) {
      ++r.gaps;
      r.gap_s += dt;
    } else if (std::abs(dt - r.median_interval_s) > 0.2 * r.median_interval_s) {
      r.irregular = true;
    }
  }
}

PowerTrace read_csv_power(std::istream& in, const std::string& source);

}  // namespace

PowerTrace read_power_trace(std::istream& in, const std::string& source) {
  // Read whole, so that the first line can choose the format.
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  PowerTrace trace;
  if (looks_like_prometheus(first_content_line(text))) {
    trace = read_prometheus_power(text, source);
  } else {
    std::istringstream csv(text);
    trace = read_csv_power(csv, source);
  }
  report_sampling(trace);
  return trace;
}

namespace {

PowerTrace read_csv_power(std::istream& in, const std::string& source) {
  PowerTrace trace;
  trace.source = source;
  // '#' lines are notes some logging scripts put above the header.
  core::CsvReader csv(in, source, core::CsvDialect{',', '#'});
  std::vector<std::string> keys;
  const auto head = csv.next();
  if (!head)
    throw TraceFormatError(SourceLocation{source, csv.line(), 0}, "header", "the power log is empty");
  const std::uint32_t header_line = head->line;
  for (const auto& f : head->fields) keys.push_back(header_key(f.text));
  const int time_col = find_column(keys, {"timestamp", "time_s", "time", "t_s", "t"});
  // Where nvidia-smi gives both, the instantaneous reading: on recent drivers `power.draw` is a one-second
  // average, which on one H200 (examples/telemetry/h200-sxm) read 7 % under NVML's energy counter over
  // 5-s windows of work, where the instantaneous reading came within 2 %.
  const int power_col = find_column(keys, {"power.draw.instant", "power.draw", "gpu_power_draw", "power_w",
                                           "power", "dcgm_fi_dev_power_usage"});
  const int index_col = find_column(keys, {"index", "gpu_index", "gpu"});
  const int sm_col = find_column(keys, {"dcgm_fi_prof_sm_active"});
  const int limit_col =
      find_column(keys, {"power.limit", "enforced.power.limit", "dcgm_fi_dev_power_mgmt_limit"});
  const int max_limit_col = find_column(keys, {"power.max_limit", "gpu_max_power"});
  if (time_col < 0)
    throw TraceFormatError(SourceLocation{source, header_line, 1}, "header",
                           "no time column (expected 'timestamp' as nvidia-smi writes it, or 'time_s')");
  if (power_col < 0)
    throw TraceFormatError(SourceLocation{source, header_line, 1}, "header",
                           "no power column (expected 'power.draw [W]', 'gpu_power_draw', 'power_W' or "
                           "'DCGM_FI_DEV_POWER_USAGE')");

  std::map<int, GpuPowerSeries> series;
  std::map<int, double> last_time;  // absolute, per GPU, for duplicate and order checks
  std::optional<double> t0;
  std::string prev_stamp;
  int same_stamp_count = 0;
  while (const auto row = csv.next()) {
    const std::uint32_t line_no = row->line;
    const auto& fields = row->fields;
    if (fields.size() < keys.size())
      throw TraceFormatError(
          SourceLocation{source, line_no, 1}, "record",
          "has " + std::to_string(fields.size()) + " fields, the header has " + std::to_string(keys.size()));
    ++trace.report.rows;
    const core::CsvField& tf = fields[static_cast<std::size_t>(time_col)];
    const auto t = parse_time(tf.text);
    if (!t)
      throw TraceFormatError(SourceLocation{source, line_no, tf.column},
                             keys[static_cast<std::size_t>(time_col)],
                             "'" + tf.text + "' is not a timestamp or a number of seconds");
    int gpu = 0;
    if (index_col >= 0) {
      const core::CsvField& f = fields[static_cast<std::size_t>(index_col)];
      const auto v = parse_value(f.text);
      // An index past int's range (9223372036854775807) is no GPU's: checked by the conversion.
      const auto i = v && *v == std::floor(*v) ? core::integer_in_range<int>(*v, 0) : std::nullopt;
      if (!i)
        throw TraceFormatError(SourceLocation{source, line_no, f.column}, "index",
                               "'" + f.text + "' is not a GPU index");
      gpu = *i;
    } else {
      // Without an index column, GPUs of one query share the timestamp and come in order.
      same_stamp_count = (tf.text == prev_stamp) ? same_stamp_count + 1 : 0;
      prev_stamp = tf.text;
      gpu = same_stamp_count;
    }
    const core::CsvField& pf = fields[static_cast<std::size_t>(power_col)];
    if (is_missing(pf.text)) {
      ++trace.report.missing_power;
      continue;
    }
    const auto p = parse_value(pf.text);
    // Above kMaxPowerW is no GPU's or node's draw: 1e300 W made the trace's energy infinite.
    if (!p || *p < 0.0 || *p > kMaxPowerW)
      throw TraceFormatError(SourceLocation{source, line_no, pf.column},
                             keys[static_cast<std::size_t>(power_col)],
                             "'" + pf.text + "' is not a power in W (0 to 1e6)");
    if (!t0) t0 = *t;
    // The series is re-based to its first sample; a later one beyond the clock's input range (1e300 s) is
    // no sampling interval.
    if (std::fabs(*t - *t0) > core::kMaxInputSeconds)
      throw TraceFormatError(
          SourceLocation{source, line_no, tf.column}, keys[static_cast<std::size_t>(time_col)],
          "'" + tf.text + "' is beyond the 1e9 s (31.7 years) a log may span from its first sample");
    auto& s = series[gpu];
    s.index = gpu;
    if (const auto it = last_time.find(gpu); it != last_time.end()) {
      if (*t < it->second)
        throw TraceFormatError(SourceLocation{source, line_no, tf.column},
                               keys[static_cast<std::size_t>(time_col)],
                               "time runs backwards for GPU " + std::to_string(gpu));
      if (*t == it->second) {
        ++trace.report.duplicated_times;
        continue;
      }
    }
    last_time[gpu] = *t;
    s.time_s.push_back(*t - *t0);
    s.power_W.push_back(*p);
    // The limits beside the draw: checked like it, `[N/A]` on boards that do not report them.
    for (const auto& [col, into] :
         {std::pair{limit_col, &s.limit_W}, std::pair{max_limit_col, &s.max_limit_W}}) {
      if (col < 0) continue;
      const core::CsvField& f = fields[static_cast<std::size_t>(col)];
      if (is_missing(f.text)) continue;
      const auto w = parse_value(f.text);
      if (!w || *w <= 0.0 || *w > kMaxPowerW)
        throw TraceFormatError(SourceLocation{source, line_no, f.column}, keys[static_cast<std::size_t>(col)],
                               "'" + f.text + "' is not a power limit in W (above 0, to 1e6)");
      *into = *w;
    }
    if (sm_col >= 0) {  // SM activity beside the power, at the same times
      const core::CsvField& f = fields[static_cast<std::size_t>(sm_col)];
      if (is_missing(f.text)) continue;
      const auto a = parse_value(f.text);
      if (!a || *a < 0.0 || *a > 1.0)
        throw TraceFormatError(SourceLocation{source, line_no, f.column},
                               keys[static_cast<std::size_t>(sm_col)],
                               "'" + f.text + "' is not an activity from 0 to 1");
      s.sm_time_s.push_back(*t - *t0);
      s.sm_active.push_back(*a);
    }
  }
  if (series.empty())
    throw TraceFormatError(SourceLocation{source, csv.line(), 0}, "record",
                           "the power log has no power samples");
  for (auto& [idx, s] : series) trace.gpus.push_back(std::move(s));
  return trace;
}

}  // namespace

PowerTrace trace_span(const PowerTrace& trace, double from_s, double to_s) {
  if (!(from_s < to_s)) throw std::invalid_argument("a span of a power log must end after it starts");
  PowerTrace out;
  out.source = trace.source;
  out.report = trace.report;
  const auto keep = [&](const std::vector<double>& t, const std::vector<double>& v, std::vector<double>& ot,
                        std::vector<double>& ov) {
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i] >= from_s && t[i] <= to_s) ot.push_back(t[i]), ov.push_back(v[i]);
  };
  for (const GpuPowerSeries& g : trace.gpus) {
    GpuPowerSeries s;
    s.index = g.index, s.limit_W = g.limit_W, s.max_limit_W = g.max_limit_W;
    keep(g.time_s, g.power_W, s.time_s, s.power_W);
    keep(g.sm_time_s, g.sm_active, s.sm_time_s, s.sm_active);
    if (!s.time_s.empty()) out.gpus.push_back(std::move(s));
  }
  return out;
}

double trapezoid_energy_J(const GpuPowerSeries& s) noexcept {
  double e = 0.0;
  for (std::size_t i = 1; i < s.time_s.size(); ++i)
    e += 0.5 * (s.power_W[i] + s.power_W[i - 1]) * (s.time_s[i] - s.time_s[i - 1]);
  return e;
}

}  // namespace fleetwatt::models::fit
