// A small RFC 4180 CSV reader that remembers line and column of every field, so a bad record can be
// reported as "file:line:column: field: message". Used by job lists, traces and telemetry readers.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/workloads/input_error.hpp"

namespace fleetwatt::workloads {

struct CsvField {
  std::string text;
  std::uint32_t column = 0;  ///< 1-based character column where the field starts
};

struct CsvRow {
  std::uint32_t line = 0;  ///< 1-based line number
  std::vector<CsvField> fields;
};

class CsvReader {
 public:
  /// `name` names the source in messages (usually the file path).
  CsvReader(std::istream& in, std::string name, char separator = ',');

  /// Next non-empty record, or nothing at end of input.
  std::optional<CsvRow> next();

  /// Reads the header row and checks it has every `required` column (extra columns are allowed).
  void read_header(const std::vector<std::string>& required);
  /// Index of a header column, or nothing.
  [[nodiscard]] std::optional<std::size_t> column(std::string_view name) const;
  [[nodiscard]] const std::vector<std::string>& header() const noexcept { return header_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

  /// Location of a row's field (or of the row when the field is missing).
  [[nodiscard]] SourceLocation where(const CsvRow& row, std::size_t index) const;
  /// The field under header column `col` as text; throws TraceFormatError when the row is short.
  [[nodiscard]] const std::string& text(const CsvRow& row, std::string_view col) const;
  /// The field under `col` as a finite number.
  [[nodiscard]] double number(const CsvRow& row, std::string_view col) const;
  /// The field under `col` as an integer in [lo, hi].
  [[nodiscard]] std::int64_t integer(const CsvRow& row, std::string_view col, std::int64_t lo,
                                     std::int64_t hi) const;

 private:
  std::size_t index_of(std::string_view col) const;

  std::istream& in_;
  std::string name_;
  char separator_;
  std::uint32_t line_ = 0;
  std::vector<std::string> header_;
};

/// Parses a whole string as a finite double (no trailing junk); nothing otherwise.
[[nodiscard]] std::optional<double> parse_number(std::string_view text);

}  // namespace fleetwatt::workloads
