// Text helpers shared by the trace and grid-signal readers: numbered line reading, CSV field splitting,
// locale-independent number parsing and ISO-8601 timestamps. Private to the workloads library.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetwatt::workloads::text {

/// Reads a stream line by line, counting lines from 1 and dropping a trailing '\r'.
class LineReader {
 public:
  explicit LineReader(std::istream& in) : in_(in) {}
  /// The next line, or false at the end of the stream.
  bool next(std::string& line);
  [[nodiscard]] std::uint32_t line_number() const noexcept { return line_; }

 private:
  std::istream& in_;
  std::uint32_t line_ = 0;
};

/// Splits one CSV record on `sep`; double-quoted fields may hold separators and "" escapes. Fields are
/// trimmed of surrounding blanks.
[[nodiscard]] std::vector<std::string> split_csv(std::string_view line, char sep = ',');

/// Splits on runs of blanks (SWF records).
[[nodiscard]] std::vector<std::string_view> split_blanks(std::string_view line);

[[nodiscard]] std::string_view trim(std::string_view s) noexcept;
[[nodiscard]] std::string lower(std::string_view s);

/// The whole field as a finite number ("1e3", "-2.5"); nothing for empty, partial or non-finite text.
[[nodiscard]] std::optional<double> parse_double(std::string_view s) noexcept;
/// The whole field as an integer (a number with a zero fraction, such as "4.0", is accepted).
[[nodiscard]] std::optional<std::int64_t> parse_int(std::string_view s) noexcept;

/// Seconds since 1970-01-01T00:00:00Z of an ISO-8601-like timestamp: "YYYY-MM-DD HH:MM[:SS[.fff]]" with
/// 'T' or ' ' between date and time, optionally followed by "Z" or "+HH:MM"/"-HH:MM". A time without a
/// zone is read as UTC (trace readers only use differences). Nothing when the text is not such a time.
[[nodiscard]] std::optional<double> parse_timestamp(std::string_view s) noexcept;

/// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's days_from_civil).
[[nodiscard]] std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept;

/// Index of the column named `name` (case-insensitive) in a header, if present.
[[nodiscard]] std::optional<std::size_t> find_column(const std::vector<std::string>& header,
                                                     std::string_view name);

}  // namespace fleetwatt::workloads::text
