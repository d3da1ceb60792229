// ISO 8601 time stamps on a run's wall clock.
#include "fleetwatt/results/metrics/wall_clock.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <ctime>

namespace fleetwatt::results {

std::string WallClock::iso8601(std::int64_t t_ns) const {
  // Floor division: a time before the start (negative) still names the second it falls in.
  std::int64_t whole = t_ns / 1'000'000'000, frac = t_ns % 1'000'000'000;
  if (frac < 0) {
    frac += 1'000'000'000;
    --whole;
  }
  // The local reading, broken down as if it were UTC: the offset is already added.
  const std::time_t local = static_cast<std::time_t>(local_start_s() + whole);
  std::tm tm{};
  gmtime_r(&local, &tm);
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900, tm.tm_mon + 1,
                                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (frac != 0) {
    std::string digits = fmt::format("{:09}", frac);
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  if (utc_offset_s == 0) return out + "Z";
  const int off = std::abs(utc_offset_s);
  return out + fmt::format("{}{:02}:{:02}", utc_offset_s < 0 ? '-' : '+', off / 3600, off % 3600 / 60);
}

}  // namespace fleetwatt::results
