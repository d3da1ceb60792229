// Text helpers of the trace readers that core does not hold: numbered line reading and blank-separated
// records (SWF). Case-insensitive column lookup, CSV, numbers and timestamps come from core (csv_reader.hpp,
// timestamp.hpp), which every reader shares. Private to the jobs library.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetwatt::jobs::text {

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

/// Splits on runs of blanks (SWF records).
[[nodiscard]] std::vector<std::string_view> split_blanks(std::string_view line);

[[nodiscard]] std::string_view trim(std::string_view s) noexcept;

}  // namespace fleetwatt::jobs::text
