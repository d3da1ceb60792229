// The one date/time parser of fleetwatt: ISO 8601 timestamps as traces, grid signals and power logs write
// them, and nvidia-smi's "YYYY/MM/DD HH:MM:SS.fff". A zone suffix ("Z", "+HH:MM", "-HH:MM") is honoured:
// logs from two sites, or from one site across a daylight-saving change, must land on one clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fleetwatt::core {

/// Seconds since 1970-01-01T00:00:00Z of "YYYY-MM-DD HH:MM[:SS[.fff]]" ('T' or ' ' between date and time;
/// '/' instead of '-' in the date, as nvidia-smi writes it), optionally followed, with or without blanks,
/// by "Z" or an offset "+HH:MM", "-HH:MM", "+HHMM" or "+HH". A time without a zone is read as UTC. Nothing
/// when the text is not such a time or names an impossible date (2023-02-30) or time of day.
[[nodiscard]] std::optional<double> parse_timestamp(std::string_view text) noexcept;

/// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's days_from_civil).
[[nodiscard]] std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept;

}  // namespace fleetwatt::core
