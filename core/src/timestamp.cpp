// ISO 8601 and nvidia-smi timestamps to seconds since the Unix epoch, zone offsets applied.
#include "fleetwatt/core/timestamp.hpp"

#include <charconv>
#include <cmath>

namespace fleetwatt::core {

namespace {

// Reads exactly `n` digits at s[pos..] into `out`.
bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) noexcept {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  return true;
}

bool is_blank(char c) noexcept {
  return c == ' ' || c == '\t';
}

bool leap_year(int y) noexcept {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int y, int m) noexcept {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap_year(y) ? 29 : kDays[m - 1];
}

// Seconds east of UTC of a zone suffix ("" and "Z" are UTC); nothing when it is not one.
std::optional<int> zone_offset_s(std::string_view zone) noexcept {
  if (zone.empty() || zone == "Z" || zone == "z") return 0;
  if (zone[0] != '+' && zone[0] != '-') return std::nullopt;
  int h = 0, m = 0;
  if (zone.size() == 6 && zone[3] == ':') {
    if (!digits(zone, 1, 2, h) || !digits(zone, 4, 2, m)) return std::nullopt;
  } else if (zone.size() == 5) {
    if (!digits(zone, 1, 2, h) || !digits(zone, 3, 2, m)) return std::nullopt;
  } else if (zone.size() == 3) {
    if (!digits(zone, 1, 2, h)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (h > 23 || m > 59) return std::nullopt;
  return (zone[0] == '+' ? 1 : -1) * (h * 3600 + m * 60);
}

}  // namespace

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::optional<double> parse_timestamp(std::string_view s) noexcept {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && (is_blank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (s.size() < 16 || !digits(s, 0, 4, y) || (s[4] != '-' && s[4] != '/') || s[7] != s[4] ||
      !digits(s, 5, 2, mo) || !digits(s, 8, 2, d) || (s[10] != ' ' && s[10] != 'T') || !digits(s, 11, 2, h) ||
      s[13] != ':' || !digits(s, 14, 2, mi))
    return std::nullopt;
  std::size_t pos = 16;
  double frac = 0.0;
  if (pos < s.size() && s[pos] == ':') {
    if (!digits(s, pos + 1, 2, sec)) return std::nullopt;
    pos += 3;
    if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
      // The fraction as one correctly rounded number ("0.296"), not a sum of digit weights.
      std::size_t end = pos + 1;
      while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
      if (end == pos + 1) return std::nullopt;
      char buf[32] = "0.";
      const std::size_t n = std::min<std::size_t>(end - pos - 1, sizeof buf - 3);
      for (std::size_t i = 0; i < n; ++i) buf[2 + i] = s[pos + 1 + i];
      const auto [p, ec] = std::from_chars(buf, buf + 2 + n, frac);
      if (ec != std::errc() || p != buf + 2 + n) return std::nullopt;
      pos = end;
    }
  }
  // sec == 60 is a leap second, as ISO 8601 allows.
  if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 60)
    return std::nullopt;
  std::string_view zone = s.substr(pos);
  while (!zone.empty() && is_blank(zone.front())) zone.remove_prefix(1);
  const auto offset = zone_offset_s(zone);
  if (!offset) return std::nullopt;
  const auto days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const std::int64_t whole = days * 86400 + h * 3600 + mi * 60 + sec - *offset;
  return static_cast<double>(whole) + frac;
}

}  // namespace fleetwatt::core
