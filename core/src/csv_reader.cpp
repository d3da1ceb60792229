// RFC 4180 CSV with located fields.
#include "fleetwatt/workloads/csv_reader.hpp"

#include <fmt/format.h>
#include <charconv>
#include <cmath>

namespace fleetwatt::workloads {

std::optional<double> parse_number(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  double v = 0.0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

CsvReader::CsvReader(std::istream& in, std::string name, char separator)
    : in_(in), name_(std::move(name)), separator_(separator) {}

std::optional<CsvRow> CsvReader::next() {
  std::string line;
  while (std::getline(in_, line)) {
    ++line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    CsvRow row;
    row.line = line_;
    std::string field;
    std::uint32_t field_col = 1;
    bool quoted = false;
    std::size_t i = 0;
    for (;;) {
      if (i >= line.size()) {
        if (quoted) {
          // A quoted field may hold a line break: continue on the next physical line.
          std::string more;
          if (!std::getline(in_, more))
            throw TraceFormatError({name_, row.line, field_col}, "", "unterminated quoted field");
          ++line_;
          if (!more.empty() && more.back() == '\r') more.pop_back();
          field += '\n';
          line = std::move(more);
          i = 0;
          continue;
        }
        row.fields.push_back({field, field_col});
        break;
      }
      char c = line[i];
      if (quoted) {
        if (c == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            ++i;
          } else {
            quoted = false;
          }
        } else {
          field += c;
        }
      } else if (c == '"' && field.empty()) {
        quoted = true;
      } else if (c == separator_) {
        row.fields.push_back({field, field_col});
        field.clear();
        field_col = static_cast<std::uint32_t>(i + 2);
      } else {
        field += c;
      }
      ++i;
    }
    return row;
  }
  return std::nullopt;
}

static std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t");
  auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

void CsvReader::read_header(const std::vector<std::string>& required) {
  auto row = next();
  if (!row) throw TraceFormatError({name_, 0, 0}, "", "empty file: expected a header line");
  header_.clear();
  for (auto& f : row->fields) header_.push_back(trim(f.text));
  // A UTF-8 byte-order mark would otherwise glue itself to the first column's name.
  if (!header_.empty() && header_[0].rfind("\xEF\xBB\xBF", 0) == 0) header_[0] = header_[0].substr(3);
  for (const auto& r : required)
    if (!column(r))
      throw TraceFormatError({name_, row->line, 1}, r,
                             fmt::format("missing column (header has: {})", fmt::join(header_, ",")));
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
  return *v;
}

std::int64_t CsvReader::integer(const CsvRow& row, std::string_view col, std::int64_t lo,
                                std::int64_t hi) const {
  double v = number(row, col);
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw TraceFormatError(where(row, index_of(col)), std::string(col),
                           fmt::format("expected an integer in [{}, {}], got {}", lo, hi, text(row, col)));
  return static_cast<std::int64_t>(v);
}

}  // namespace fleetwatt::workloads
