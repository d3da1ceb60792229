// The instruction-count gate's baseline file, verdicts and callgrind figures (instruction_baseline.hpp).
#include "instruction_baseline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>
#include <system_error>

#include "fleetwatt/core/toml_table.hpp"

namespace fleetwatt::tools {

namespace {
namespace fs = std::filesystem;
using core::ConfigError;
using core::TomlTable;

const std::vector<std::string> kTopKeys{"root", "case"};
const std::vector<std::string> kCaseKeys{"name", "scenario", "args", "instructions", "compiler", "machine"};

/// Case names are printed in tables and named on failure lines that scripts grep: plain words only.
bool plain_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}

/// The digits after `label` (and blanks, a colon, blanks) on the first line holding it.
std::optional<std::uint64_t> number_after(std::string_view text, std::string_view label) {
  for (std::size_t at = text.find(label); at != std::string_view::npos; at = text.find(label, at + 1)) {
    std::size_t i = at + label.size();
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < text.size() && text[i] == ':') ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
    if (ec == std::errc() && end != text.data() + i) return v;
  }
  return std::nullopt;
}

/// A TOML basic string holding `s`.
std::string toml_quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out + '"';
}

/// Byte offsets of toml++ source positions (1-based lines, and columns counted in code points) in `text`.
class Offsets {
 public:
  explicit Offsets(const std::string& text) : text_(text) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts_.push_back(i + 1);
  }
  [[nodiscard]] std::size_t at(const toml::source_position& p) const {
    if (p.line == 0 || p.line > starts_.size()) throw std::logic_error("baseline rewrite: a position past the text");
    std::size_t i = starts_[p.line - 1];
    for (std::uint32_t col = 1; col < p.column && i < text_.size(); ++col) {
      ++i;  // past one code point: its lead byte, then its continuation bytes
      while (i < text_.size() && (static_cast<unsigned char>(text_[i]) & 0xC0) == 0x80) ++i;
    }
    return i;
  }
  /// Where the line holding `offset` ends (its newline, or the end of the text).
  [[nodiscard]] std::size_t line_end(std::size_t offset) const {
    const auto nl = text_.find('\n', offset);
    return nl == std::string::npos ? text_.size() : nl;
  }
  /// The blanks that begin the line of position `p`.
  [[nodiscard]] std::string indent(const toml::source_position& p) const {
    std::size_t i = starts_[p.line - 1], j = i;
    while (j < text_.size() && (text_[j] == ' ' || text_[j] == '\t')) ++j;
    return text_.substr(i, j - i);
  }

 private:
  const std::string& text_;
  std::vector<std::size_t> starts_;
};
}  // namespace

InstructionBaseline read_instruction_baseline(const fs::path& file) {
  const toml::table doc = core::parse_toml_file(file);
  const TomlTable top(doc, "", file.string());
  top.require_known(kTopKeys);
  InstructionBaseline b;
  b.file = file;
  // A relative root is taken from the baseline file's folder, so the file means the same from any folder.
  const fs::path root = top.string("root").value_or(".");
  b.root = (root.is_absolute() ? root : file.parent_path() / root).lexically_normal();
  if (b.root.empty()) b.root = ".";
  std::error_code ec;
  if (!fs::is_directory(b.root, ec)) top.fail("root", fmt::format("{}: not a folder", b.root.string()));
  const auto cases = top.tables("case");
  if (cases.empty()) top.fail("case", "no [[case]] table: the file measures nothing");
  for (const TomlTable& c : cases) {
    c.require_known(kCaseKeys);
    InstructionCase k;
    k.where = c.where();
    const auto name = c.string("name");
    if (!name) throw ConfigError(k.where, c.dotted("name"), "missing: each [[case]] needs a name");
    if (!plain_name(*name)) c.fail("name", fmt::format("'{}': letters, digits, '-', '_' and '.' only", *name));
    for (const InstructionCase& earlier : b.cases)
      if (earlier.name == *name)
        c.fail("name", fmt::format("'{}' is also the name of the case at {}", *name, earlier.where.to_string()));
    k.name = *name;
    const auto scenario = c.string("scenario");
    if (!scenario) throw ConfigError(k.where, c.dotted("scenario"), "missing: each [[case]] needs a scenario");
    k.scenario = *scenario;
    k.scenario_path = (b.root / *scenario).lexically_normal();
    if (!fs::is_regular_file(k.scenario_path, ec))
      c.fail("scenario", fmt::format("{}: no such file (paths are relative to {})", k.scenario_path.string(),
                                     b.root.string()));
    k.args = c.strings("args").value_or(std::vector<std::string>{});
    if (const auto n = c.integer("instructions", 1, std::numeric_limits<std::int64_t>::max()))
      k.instructions = static_cast<std::uint64_t>(*n);
    k.compiler = c.string("compiler").value_or("");
    k.machine = c.string("machine").value_or("");
    b.cases.push_back(std::move(k));
  }
  return b;
}

std::string rewrite_instruction_counts(const std::string& text, const std::string& file,
                                       const std::vector<InstructionUpdate>& updates) {
  const toml::table doc = core::parse_toml(text, file);
  const Offsets offsets(text);
  struct Edit {
    std::size_t at = 0, length = 0;
    std::string with;
  };
  std::vector<Edit> edits;
  const auto* cases = doc.get_as<toml::array>("case");
  for (const InstructionUpdate& u : updates) {
    const toml::table* found = nullptr;
    if (cases)
      for (const toml::node& n : *cases)
        if (const auto* t = n.as_table(); t && t->get_as<std::string>("name") &&
                                          t->get_as<std::string>("name")->get() == u.name)
          found = t;
    if (!found) throw ConfigError({file, 0, 0}, "case", fmt::format("no [[case]] named '{}'", u.name));
    const toml::node& name = *found->get("name");
    const std::pair<std::string, std::string> values[] = {
        {"instructions", std::to_string(u.instructions)},
        {"compiler", toml_quoted(u.compiler)},
        {"machine", toml_quoted(u.machine)}};
    // Keys absent from the case go after its last value (a new case's scenario or args), in this order, with
    // its name line's indentation.
    std::string inserted;
    std::size_t last = 0;
    for (const auto& entry : *found) last = std::max(last, offsets.at(entry.second.source().end));
    for (const auto& [key, literal] : values) {
      if (const toml::node* v = found->get(key)) {
        const std::size_t from = offsets.at(v->source().begin), to = offsets.at(v->source().end);
        edits.push_back({from, to - from, literal});
      } else {
        inserted += fmt::format("\n{}{} = {}", offsets.indent(name.source().begin), key, literal);
      }
    }
    if (!inserted.empty()) edits.push_back({offsets.line_end(last), 0, inserted});
  }
  // Last edit first, so that each one's offsets still hold when it is made.
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.at > b.at; });
  std::string out = text;
  for (const Edit& e : edits) out.replace(e.at, e.length, e.with);
  return out;
}

InstructionJudgement judge_instructions(std::uint64_t baseline, std::uint64_t measured, double tolerance_pct) {
  if (baseline == 0) throw std::invalid_argument("judge_instructions: a baseline of 0 instructions");
  InstructionJudgement j;
  // Counts stay far below 2^53, so the doubles are exact.
  j.change_pct = 100.0 * (static_cast<double>(measured) - static_cast<double>(baseline)) /
                 static_cast<double>(baseline);
  if (j.change_pct > tolerance_pct)
    j.verdict = InstructionVerdict::slower;
  else if (j.change_pct < -tolerance_pct)
    j.verdict = InstructionVerdict::faster;
  return j;
}

std::optional<std::uint64_t> callgrind_collected(std::string_view log) {
  return number_after(log, "Collected");
}

std::optional<std::uint64_t> callgrind_totals(std::string_view out_file_text) {
  // Lines begin with the key: "totals: 6286730131" (3.x) or "summary: ..." (older versions).
  for (const std::string_view key : {"\ntotals", "\nsummary"})
    if (auto n = number_after(out_file_text, key)) return n;
  return std::nullopt;
}

std::string valgrind_version(std::string_view log) {
  const auto at = log.find("Using Valgrind-");
  if (at == std::string_view::npos) return "";
  const auto start = at + 6;  // past "Using "
  const auto end = log.find_first_of(" \n", start);
  return std::string(log.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
}

std::string group_digits(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace fleetwatt::tools
