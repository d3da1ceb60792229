// Power-log reader: header detection for nvidia-smi's two column styles and plain time/power CSV, unit
// stripping, timestamp parsing, per-GPU series and a report of the sampling's irregularities.
#include "fleetwatt/models/fit/telemetry.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>

#include "fleetwatt/workloads/input_error.hpp"

namespace fleetwatt::models::fit {

using workloads::ConfigError;
using workloads::SourceLocation;
using workloads::TraceFormatError;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '"'))
    s.remove_suffix(1);
  return s;
}

/// Fields of one CSV line with their 1-based starting columns (nvidia-smi never quotes commas).
struct Field {
  std::string_view text;
  std::uint32_t column;
};

std::vector<Field> split_fields(std::string_view line) {
  std::vector<Field> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    const std::string_view raw =
        line.substr(start, comma == std::string_view::npos ? line.npos : comma - start);
    std::size_t lead = 0;
    while (lead < raw.size() && raw[lead] == ' ') ++lead;
    out.push_back({trim(raw), static_cast<std::uint32_t>(start + lead + 1)});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

/// Header name without its unit ("power.draw [W]" -> "power.draw"), lower case.
std::string header_key(std::string_view h) {
  h = trim(h);
  if (const auto br = h.find('['); br != std::string_view::npos) h = trim(h.substr(0, br));
  std::string k(h);
  std::transform(k.begin(), k.end(), k.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return k;
}

std::optional<double> parse_number(std::string_view s) {
  s = trim(s);
  // Drop a trailing unit ("72.36 W", "12 %", "8192 MiB").
  if (const auto sp = s.find(' '); sp != std::string_view::npos) s = s.substr(0, sp);
  if (s.empty()) return std::nullopt;
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool is_missing(std::string_view s) {
  s = trim(s);
  return s.empty() || s == "[N/A]" || s == "N/A" || s == "[Not Supported]" || s == "nan";
}

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  // Howard Hinnant's algorithm: days since 1970-01-01 in the proleptic Gregorian calendar.
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/// Seconds of a timestamp: "2023/02/20 08:38:16.296", "2023-01-21 10:39:17.027", ISO 8601 with 'T', or a
/// plain number of seconds.
std::optional<double> parse_time(std::string_view s) {
  s = trim(s);
  if (s.size() >= 19 && (s[4] == '/' || s[4] == '-') && (s[10] == ' ' || s[10] == 'T')) {
    auto num = [&](std::size_t pos, std::size_t len) -> std::optional<int> {
      int v = 0;
      const auto [p, ec] = std::from_chars(s.data() + pos, s.data() + pos + len, v);
      if (ec != std::errc() || p != s.data() + pos + len) return std::nullopt;
      return v;
    };
    const auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2);
    if (!y || !mo || !d || !h || !mi || s[13] != ':' || s[16] != ':') return std::nullopt;
    std::string_view sec_text = s.substr(17);
    if (const auto z = sec_text.find_first_of("Z+"); z != std::string_view::npos)
      sec_text = sec_text.substr(0, z);
    double sec = 0.0;
    const auto [p, ec] = std::from_chars(sec_text.data(), sec_text.data() + sec_text.size(), sec);
    if (ec != std::errc() || p != sec_text.data() + sec_text.size()) return std::nullopt;
    if (*mo < 1 || *mo > 12 || *d < 1 || *d > 31) return std::nullopt;
    return static_cast<double>(days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d))) *
               86400.0 +
           *h * 3600.0 + *mi * 60.0 + sec;
  }
  return parse_number(s);
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

PowerTrace read_power_trace(std::istream& in, const std::string& source) {
  PowerTrace trace;
  trace.source = source;
  std::string line;
  std::uint32_t line_no = 0;
  std::vector<std::string> keys;
  while (keys.empty() && std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty() || trim(line).front() == '#') continue;
    for (const auto& f : split_fields(line)) keys.push_back(header_key(f.text));
  }
  if (keys.empty())
    throw TraceFormatError(SourceLocation{source, line_no, 0}, "header", "the power log is empty");
  const int time_col = find_column(keys, {"timestamp", "time_s", "time", "t_s", "t"});
  const int power_col =
      find_column(keys, {"power.draw", "gpu_power_draw", "power_w", "power.draw.instant", "power"});
  const int index_col = find_column(keys, {"index", "gpu_index"});
  if (time_col < 0)
    throw TraceFormatError(SourceLocation{source, line_no, 1}, "header",
                           "no time column (expected 'timestamp' as nvidia-smi writes it, or 'time_s')");
  if (power_col < 0)
    throw TraceFormatError(SourceLocation{source, line_no, 1}, "header",
                           "no power column (expected 'power.draw [W]', 'gpu_power_draw' or 'power_W')");

  std::map<int, GpuPowerSeries> series;
  std::map<int, double> last_time;  // absolute, per GPU, for duplicate and order checks
  std::optional<double> t0;
  std::string prev_stamp;
  int same_stamp_count = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty()) continue;
    const auto fields = split_fields(line);
    if (fields.size() < keys.size())
      throw TraceFormatError(
          SourceLocation{source, line_no, 1}, "record",
          "has " + std::to_string(fields.size()) + " fields, the header has " + std::to_string(keys.size()));
    ++trace.report.rows;
    const Field& tf = fields[static_cast<std::size_t>(time_col)];
    const auto t = parse_time(tf.text);
    if (!t)
      throw TraceFormatError(SourceLocation{source, line_no, tf.column},
                             keys[static_cast<std::size_t>(time_col)],
                             "'" + std::string(tf.text) + "' is not a timestamp or a number of seconds");
    int gpu = 0;
    if (index_col >= 0) {
      const Field& f = fields[static_cast<std::size_t>(index_col)];
      const auto v = parse_number(f.text);
      if (!v || *v < 0 || *v != std::floor(*v))
        throw TraceFormatError(SourceLocation{source, line_no, f.column}, "index",
                               "'" + std::string(f.text) + "' is not a GPU index");
      gpu = static_cast<int>(*v);
    } else {
      // Without an index column, GPUs of one query share the timestamp and come in order.
      same_stamp_count = (tf.text == prev_stamp) ? same_stamp_count + 1 : 0;
      prev_stamp = std::string(tf.text);
      gpu = same_stamp_count;
    }
    const Field& pf = fields[static_cast<std::size_t>(power_col)];
    if (is_missing(pf.text)) {
      ++trace.report.missing_power;
      continue;
    }
    const auto p = parse_number(pf.text);
    if (!p || *p < 0.0)
      throw TraceFormatError(SourceLocation{source, line_no, pf.column},
                             keys[static_cast<std::size_t>(power_col)],
                             "'" + std::string(pf.text) + "' is not a power in W");
    if (!t0) t0 = *t;
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
  }
  if (series.empty())
    throw TraceFormatError(SourceLocation{source, line_no, 0}, "record",
                           "the power log has no power samples");
  for (auto& [idx, s] : series) trace.gpus.push_back(std::move(s));

  // Sampling statistics over every GPU's intervals.
  std::vector<double> intervals;
  for (const auto& s : trace.gpus)
    for (std::size_t i = 1; i < s.time_s.size(); ++i) intervals.push_back(s.time_s[i] - s.time_s[i - 1]);
  auto& r = trace.report;
  if (!intervals.empty()) {
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
  return trace;
}

double trapezoid_energy_J(const GpuPowerSeries& s) noexcept {
  double e = 0.0;
  for (std::size_t i = 1; i < s.time_s.size(); ++i)
    e += 0.5 * (s.power_W[i] + s.power_W[i - 1]) * (s.time_s[i] - s.time_s[i - 1]);
  return e;
}

}  // namespace fleetwatt::models::fit
