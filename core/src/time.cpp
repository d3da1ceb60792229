// Conversions at the seconds boundary and checked arithmetic of the integer clock.
#include "fleetwatt/core/time.hpp"

#include <fmt/format.h>
#include <cmath>
#include <stdexcept>

namespace fleetwatt::core {

Duration Duration::from_seconds(double s) {
  const double ns = std::round(s * 1e9);
  // 9.2e18 ns is the int64 limit; refuse rather than wrap.
  if (!std::isfinite(ns) || std::fabs(ns) >= 9.2e18)
    throw std::out_of_range(fmt::format("duration of {} s is outside the simulated clock's range", s));
  return Duration(static_cast<std::int64_t>(ns));
}

Duration operator*(Duration a, std::int64_t k) {
  std::int64_t r;
  if (__builtin_mul_overflow(a.ns_, k, &r)) throw std::overflow_error("simulated time overflow");
  return Duration(r);
}

std::string format_time(Time t) {
  std::int64_t ns = t.ns();
  const char* sign = ns < 0 ? "-" : "";
  if (ns < 0) ns = -ns;
  const std::int64_t total_ms = ns / 1'000'000;
  const std::int64_t ms = total_ms % 1000;
  const std::int64_t s = (total_ms / 1000) % 60;
  const std::int64_t m = (total_ms / 60'000) % 60;
  const std::int64_t h = (total_ms / 3'600'000) % 24;
  const std::int64_t d = total_ms / 86'400'000;
  if (d > 0) return fmt::format("{}{}d {:02}:{:02}:{:02}.{:03}", sign, d, h, m, s, ms);
  return fmt::format("{}{:02}:{:02}:{:02}.{:03}", sign, h, m, s, ms);
}

}  // namespace fleetwatt::core
