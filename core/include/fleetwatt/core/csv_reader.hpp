// The one CSV tokenizer of fleetwatt: RFC 4180 quoting (separators, "" escapes and line breaks inside
// quotes) with the location of every field, so a bad record is reported as "file:line:column: field:
// message". Job lists, traces, grid signals, power logs and fitting records all read through it. Blanks
// around an unquoted field are not part of it (nvidia-smi writes ", " between fields); inside quotes they
// are kept.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::core {

struct CsvField {
  std::string text;
  std::uint32_t column = 0;  ///< 1-based character column where the field (or its opening quote) starts
};

struct CsvRow {
  std::uint32_t line = 0;  ///< 1-based line number where the record starts
  std::vector<CsvField> fields;

  /// The fields' texts alone.
  [[nodiscard]] std::vector<std::string> texts() const;
};

/// How a file separates and comments its records.
struct CsvDialect {
  char separator = ',';
  /// Lines whose first non-blank character is this are skipped ('\0': no comments).
  char comment = '\0';
};

class CsvReader {
 public:
  /// `name` names the source in messages (usually the file path).
  CsvReader(std::istream& in, std::string name, CsvDialect dialect = {});

  /// Next non-empty record, or nothing at end of input. A quoted field left open at the end of the input
  /// is a TraceFormatError at the line where it opened.
  std::optional<CsvRow> next();

  /// Reads the header row and checks it has every `required` column (extra columns are allowed).
  void read_header(const std::vector<std::string>& required);
  /// Index of a header column (exact name), or nothing.
  [[nodiscard]] std::optional<std::size_t> column(std::string_view name) const;
  [[nodiscard]] const std::vector<std::string>& header() const noexcept { return header_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// Line number of the last line read (0 before the first).
  [[nodiscard]] std::uint32_t line() const noexcept { return line_; }

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
  CsvDialect dialect_;
  std::uint32_t line_ = 0;
  std::vector<std::string> header_;
};

/// Fields of one record held in a string (a header line, or a list inside a field), by the same rules as
/// CsvReader; a quote left open runs to the end of the text.
[[nodiscard]] std::vector<CsvField> split_csv_fields(std::string_view record, char separator = ',');
/// Same, texts only.
[[nodiscard]] std::vector<std::string> split_csv(std::string_view record, char separator = ',');

/// A field as a CSV writer must write it for this tokenizer to read it back unchanged: quoted (quotes
/// doubled) when it holds a separator, a quote, a line break or blanks at either end; as is otherwise.
[[nodiscard]] std::string csv_quote(std::string_view field, char separator = ',');

/// Parses a whole string as a finite double (surrounding blanks and a leading '+' allowed, no trailing
/// junk, no "nan"/"inf"); nothing otherwise. Locale-independent.
[[nodiscard]] std::optional<double> parse_number(std::string_view text) noexcept;
/// The whole string as an integer; a number with a zero fraction ("4.0") is accepted, |v| <= 9e15.
[[nodiscard]] std::optional<std::int64_t> parse_integer(std::string_view text) noexcept;

/// `s` in lower case (ASCII).
[[nodiscard]] std::string lower_case(std::string_view s);
/// Index of the column named `name` in a header, ignoring case (ASCII), if present.
[[nodiscard]] std::optional<std::size_t> find_column(const std::vector<std::string>& header,
                                                     std::string_view name);
/// "header has: " and the columns of `header` joined by "," when it reads as a CSV header (two or more short
/// names of letters, digits, blanks and _ . ( ) % -), for messages that list the columns a file has;
/// otherwise a sentence saying that the first line is not one. A path that names an unrelated file (a
/// scenario pointing at a system file) must not have its first line quoted back.
[[nodiscard]] std::string header_for_message(const std::vector<std::string>& header);

}  // namespace fleetwatt::core
