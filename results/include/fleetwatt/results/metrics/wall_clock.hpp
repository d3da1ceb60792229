// The wall clock a run's simulated seconds are read on: the scenario's [output] start (an instant and the UTC
// offset it was written in). Time stamps in exports, clock-aligned demand windows and hours of the day all
// come from here, so they agree with each other.
#pragma once

#include <cstdint>
#include <string>

namespace fleetwatt::results {

/// 2026-01-01T00:00:00Z, the default [output] start, in seconds since 1970-01-01T00:00:00Z.
inline constexpr std::int64_t kDefaultStartUnixS = 1767225600;

struct WallClock {
  std::int64_t start_unix_s = kDefaultStartUnixS;  ///< the instant simulated time 0 stands for
  std::int32_t utc_offset_s = 0;                   ///< the offset the start was written in (0: UTC, "Z")

  /// The local clock reading of simulated time 0, in seconds since the local 1970-01-01T00:00:00.
  [[nodiscard]] std::int64_t local_start_s() const noexcept { return start_unix_s + utc_offset_s; }
  /// ISO 8601 time stamp of `t_ns` after the start, on the start's offset: "2026-01-01T00:15:00Z",
  /// "2026-07-01T02:00:00+02:00"; fractions of a second only when there are any.
  [[nodiscard]] std::string iso8601(std::int64_t t_ns) const;
};

}  // namespace fleetwatt::results
