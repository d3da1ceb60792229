// RFC 4180 CSV with located fields: one tokenizer, fed a line at a time, behind both the stream reader and
// the string splitter, so every CSV input of fleetwatt quotes, trims and counts columns the same way.
#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/checked_integer.hpp"
#include "fleetwatt/core/time.hpp"

#include <fmt/format.h>
#include <algorithm>

#include <cctype>
#include <charconv>
#include <cmath>

namespace fleetwatt::core {

namespace {

bool is_blank(char c) noexcept {
  return c == ' ' || c == '\t';
}

/// Tokenizes one record line by line. feed() returns true when the record is complete, false when a
/// quoted field continues on the next line (the caller then feeds that line).
class Tokenizer {
 public:
  explicit Tokenizer(char separator) : separator_(separator) {}

  bool feed(std::string_view line, std::vector<CsvField>& out) {
    std::size_t i = 0;
    if (quoted_) {
      field_ += '\n';  // the line break that ended the previous physical line is part of the field
    } else {
      start_field(line, i);
    }
    while (i < line.size()) {
      const char c = line[i];
      if (quoted_) {
        if (c == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field_ += '"';
            ++i;
          } else {
            quoted_ = false;
            was_quoted_ = true;
          }
        } else {
          field_ += c;
        }
        ++i;
      } else if (c == separator_) {
        end_field(out);
        ++i;
        start_field(line, i);
      } else {
        // Blanks after a closing quote are layout; anything else there is kept, as most readers do.
        if (!(was_quoted_ && is_blank(c))) field_ += c;
        ++i;
      }
    }
    if (quoted_) return false;
    end_field(out);
    return true;
  }

  /// Ends a record whose quote was never closed (the splitter's lenient end of text).
  void finish(std::vector<CsvField>& out) {
    quoted_ = false;
    end_field(out);
  }
  [[nodiscard]] std::uint32_t field_column() const noexcept { return column_; }

 private:
  // Skips the blanks before a field and opens a quote if the field starts with one.
  void start_field(std::string_view line, std::size_t& i) {
    while (i < line.size() && is_blank(line[i])) ++i;
    column_ = static_cast<std::uint32_t>(i + 1);
    was_quoted_ = false;
    if (i < line.size() && line[i] == '"') {
      quoted_ = true;
      ++i;
    }
  }
  void end_field(std::vector<CsvField>& out) {
    if (!was_quoted_)
      while (!field_.empty() && is_blank(field_.back())) field_.pop_back();
    out.push_back({std::move(field_), column_});
    field_.clear();
  }

  char separator_;
  std::string field_;
  std::uint32_t column_ = 1;
  bool quoted_ = false;
  bool was_quoted_ = false;
};

}  // namespace

std::vector<std::string> CsvRow::texts() const {
  std::vector<std::string> out;
  out.reserve(fields.size());
  for (const auto& f : fields) out.push_back(f.text);
  return out;
}

std::vector<CsvField> split_csv_fields(std::string_view record, char separator) {
  std::vector<CsvField> out;
  Tokenizer tok(separator);
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = record.find('\n', start);
    const std::string_view line =
        record.substr(start, nl == std::string_view::npos ? record.npos : nl - start);
    if (tok.feed(line, out)) break;
    if (nl == std::string_view::npos) {
      tok.finish(out);
      break;
    }
    start = nl + 1;
  }
  return out;
}

std::vector<std::string> split_csv(std::string_view record, char separator) {
  std::vector<std::string> out;
  for (auto& f : split_csv_fields(record, separator)) out.push_back(std::move(f.text));
  return out;
}

std::string csv_quote(std::string_view field, char separator) {
  const bool needs = field.find_first_of(std::string{separator, '"', '\n', '\r'}) != std::string_view::npos ||
                     (!field.empty() && (is_blank(field.front()) || is_blank(field.back())));
  if (!needs) return std::string(field);
  std::string out = "\"";
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::optional<double> parse_number(std::string_view text) noexcept {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && (is_blank(text.back()) || text.back() == '\r')) text.remove_suffix(1);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double v = 0.0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_integer(std::string_view text) noexcept {
  const auto v = parse_number(text);
  // 9e15 < 2^53: every integer up to it is exact in a double.
  if (!v || *v != std::floor(*v) || std::fabs(*v) > 9.0e15) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

CsvReader::CsvReader(std::istream& in, std::string name, CsvDialect dialect)
    : in_(in), name_(std::move(name)), dialect_(dialect) {}

std::optional<CsvRow> CsvReader::next() {
  std::string line;
  while (std::getline(in_, line)) {
    ++line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // A UTF-8 byte-order mark would otherwise glue itself to the first column's name.
    if (line_ == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (dialect_.comment != '\0' && line[first] == dialect_.comment) continue;
    CsvRow row;
    row.line = line_;
    Tokenizer tok(dialect_.separator);
    while (!tok.feed(line, row.fields)) {
      // A quoted field may hold a line break: continue on the next physical line.
      if (!std::getline(in_, line))
        throw TraceFormatError({name_, row.line, tok.field_column()}, "", "unterminated quoted field");
      ++line_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
    }
    return row;
  }
  return std::nullopt;
}

void CsvReader::read_header(const std::vector<std::string>& required) {
  auto row = next();
  if (!row) throw TraceFormatError({name_, 0, 0}, "", "empty file: expected a header line");
  header_ = row->texts();
  for (const auto& r : required)
    if (!column(r))
      throw TraceFormatError({name_, row->line, 1}, r,
                             fmt::format("missing column ({})", header_for_message(header_)));
}

std::optional<std::size_t> CsvReader::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == name) return i;
  return std::nullopt;
}

std::size_t CsvReader::index_of(std::string_view col) const {
  auto c = column(col);
  if (!c) throw TraceFormatError({name_, 0, 0}, std::string(col), "no such column");
  return *c;
}

SourceLocation CsvReader::where(const CsvRow& row, std::size_t index) const {
  std::uint32_t col = index < row.fields.size() ? row.fields[index].column : 0;
  return {name_, row.line, col};
}

const std::string& CsvReader::text(const CsvRow& row, std::string_view col) const {
  std::size_t i = index_of(col);
  if (i >= row.fields.size())
    throw TraceFormatError(
        where(row, i), std::string(col),
        fmt::format("record has {} fields, header has {}", row.fields.size(), header_.size()));
  return row.fields[i].text;
}

double CsvReader::number(const CsvRow& row, std::string_view col) const {
  const std::string& t = text(row, col);
  auto v = parse_number(t);
  if (!v)
    throw TraceFormatError(where(row, index_of(col)), std::string(col), fmt::format("not a number: '{}'", t));
  // A column in seconds ends up on the integer-nanosecond clock (core/time.hpp).
  if (col.size() > 2 && col.substr(col.size() - 2) == "_s" && std::fabs(*v) > kMaxInputSeconds)
    throw TraceFormatError(where(row, index_of(col)), std::string(col),
                           fmt::format("{} s is beyond the {:.0e} s (31.7 years) a simulated time may span",
                                       t, kMaxInputSeconds));
  return *v;
}

std::int64_t CsvReader::integer(const CsvRow& row, std::string_view col, std::int64_t lo,
                                std::int64_t hi) const {
  const double v = number(row, col);
  // Compared as integers: hi as a double rounds up to 2^63, which a cast to int64 cannot hold.
  const auto i = v == std::floor(v) ? integer_in_range<std::int64_t>(v, lo, hi) : std::nullopt;
  if (!i)
    throw TraceFormatError(where(row, index_of(col)), std::string(col),
                           fmt::format("expected an integer in [{}, {}], got {}", lo, hi, text(row, col)));
  return *i;
}

std::string lower_case(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::size_t> find_column(const std::vector<std::string>& header, std::string_view name) {
  const std::string want = lower_case(name);
  for (std::size_t i = 0; i < header.size(); ++i)
    if (lower_case(header[i]) == want) return i;
  return std::nullopt;
}

std::string header_for_message(const std::vector<std::string>& header) {
  const auto name_like = [](const std::string& h) {
    if (h.empty() || h.size() > 64) return false;
    return std::all_of(h.begin(), h.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) ||
             std::string_view(" _.()%-").find(c) != std::string_view::npos;
    });
  };
  if (header.size() < 2 || !std::all_of(header.begin(), header.end(), name_like))
    return "its first line is not a CSV header: is it the right file?";
  return fmt::format("header has: {}", fmt::join(header, ","));
}

}  // namespace fleetwatt::core
