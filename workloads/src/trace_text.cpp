// Text helpers for record-oriented inputs.
#include "trace_text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>

namespace fleetwatt::workloads::text {

bool LineReader::next(std::string& line) {
  if (!std::getline(in_, line)) return false;
  ++line_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  // A UTF-8 byte-order mark on the first line would otherwise become part of the first column's name.
  if (line_ == 1 && line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
  return true;
}

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> split_csv(std::string_view line, char sep) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field.push_back(c);
      }
    } else if (c == '"' && trim(field).empty()) {
      field.clear();
      quoted = true;
    } else if (c == sep) {
      fields.emplace_back(trim(field));
      field.clear();
    } else {
      field.push_back(c);
    }
  }
  fields.emplace_back(trim(field));
  return fields;
}

std::vector<std::string_view> split_blanks(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::optional<double> parse_double(std::string_view s) noexcept {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_int(std::string_view s) noexcept {
  const auto v = parse_double(s);
  if (!v || *v != std::floor(*v) || std::fabs(*v) > 9.0e15) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

namespace {

// Reads exactly `n` digits at s[pos..] into `out`.
bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  return true;
}

}  // namespace

std::optional<double> parse_timestamp(std::string_view s) noexcept {
  s = trim(s);
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!digits(s, 0, 4, y) || s.size() < 16 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != ' ' && s[10] != 'T') || !digits(s, 11, 2, h) || s[13] != ':' ||
      !digits(s, 14, 2, mi))
    return std::nullopt;
  std::size_t pos = 16;
  double frac = 0.0;
  if (pos < s.size() && s[pos] == ':') {
    if (!digits(s, pos + 1, 2, sec)) return std::nullopt;
    pos += 3;
    if (pos < s.size() && s[pos] == '.') {
      double scale = 0.1;
      ++pos;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        frac += scale * (s[pos] - '0');
        scale *= 0.1;
        ++pos;
      }
    }
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  double offset_s = 0.0;
  std::string_view zone = trim(s.substr(pos));
  if (zone == "Z" || zone.empty()) {
    // UTC, or no zone at all.
  } else if ((zone[0] == '+' || zone[0] == '-') && zone.size() == 6 && zone[3] == ':') {
    int zh = 0, zm = 0;
    if (!digits(zone, 1, 2, zh) || !digits(zone, 4, 2, zm)) return std::nullopt;
    offset_s = (zone[0] == '+' ? 1.0 : -1.0) * (zh * 3600.0 + zm * 60.0);
  } else {
    return std::nullopt;
  }
  const auto days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return static_cast<double>(days) * 86400.0 + h * 3600.0 + mi * 60.0 + sec + frac - offset_s;
}

std::optional<std::size_t> find_column(const std::vector<std::string>& header, std::string_view name) {
  const std::string want = lower(name);
  for (std::size_t i = 0; i < header.size(); ++i)
    if (lower(header[i]) == want) return i;
  return std::nullopt;
}

}  // namespace fleetwatt::workloads::text
