// Located reads from toml++ tables, and parsing with syntax errors turned into located ConfigErrors.
#include "fleetwatt/core/toml_table.hpp"

#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/core/time.hpp"

#include <fmt/format.h>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace fleetwatt::core {

SourceLocation location_of(const toml::source_region& r, const std::string& file) {
  // A node parsed from another source than `file` (a command-line override, runs/scenario_override.hpp)
  // is named by that source alone: its line and column are those of a one-line snippet, not of the file.
  if (r.path && !r.path->empty() && *r.path != file) return {*r.path, 0, 0};
  return {file, static_cast<std::uint32_t>(r.begin.line), static_cast<std::uint32_t>(r.begin.column)};
}

toml::table parse_toml(std::string_view text, const std::string& file) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw ConfigError(location_of(e.source(), file), "", std::string(e.description()));
  }
}

toml::table parse_toml_file(const std::filesystem::path& path) {
  // Read the bytes ourselves so that an unreadable file gets the same one-line error as a bad one.
  const auto text = read_file_text(path);
  if (!text) throw ConfigError({path.string(), 0, 0}, "file", "cannot be opened");
  return parse_toml(*text, path.string());
}

const char* toml_kind_name(const toml::node& n) noexcept {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date or time";
  }
}

SourceLocation TomlTable::where(const std::string& key) const {
  if (auto* n = table_.get(key)) {
    // Point at the key itself (where a reader looks), falling back to the value.
    auto it = table_.find(key);
    if (it != table_.end() && it->first.source().begin.line > 0)
      return location_of(it->first.source(), file_);
    return location_of(n->source(), file_);
  }
  return where();
}

SourceLocation TomlTable::value_where(const std::string& key) const {
  if (auto* n = table_.get(key)) return location_of(n->source(), file_);
  return where();
}

void TomlTable::fail(const std::string& key, const std::string& message) const {
  throw ConfigError(where(key), dotted(key), message);
}

std::optional<double> TomlTable::number(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const auto& n = node(key);
  if (auto i = n.as_integer()) return within_clock(key, static_cast<double>(i->get()));
  if (auto f = n.as_floating_point()) {
    if (!std::isfinite(f->get())) fail(key, "must be a finite number");
    return within_clock(key, f->get());
  }
  fail(key, fmt::format("expected a number, found {}", toml_kind_name(n)));
}

double TomlTable::within_clock(const std::string& key, double v) const {
  // Keys in seconds (`_s`) end up on the integer-nanosecond clock.
  if (key.size() > 2 && key.compare(key.size() - 2, 2, "_s") == 0 && std::fabs(v) > kMaxInputSeconds)
    fail(key, fmt::format("{} s is beyond the {:.0e} s (31.7 years) a simulated time may span", v,
                          kMaxInputSeconds));
  return v;
}

std::optional<double> TomlTable::number_at_least(const std::string& key, double lo, bool strict) const {
  auto v = number(key);
  if (v && (strict ? !(*v > lo) : !(*v >= lo))) {
    if (lo == 0.0) fail(key, fmt::format("must be {}, got {}", strict ? "positive" : "zero or more", *v));
    fail(key, fmt::format("must be {} {}, got {}", strict ? "more than" : "at least", lo, *v));
  }
  return v;
}

std::optional<double> TomlTable::number_in(const std::string& key, double lo, double hi) const {
  auto v = number(key);
  if (v && !(*v >= lo && *v <= hi)) fail(key, fmt::format("must be between {} and {}, got {}", lo, hi, *v));
  return v;
}

std::optional<std::int64_t> TomlTable::integer(const std::string& key, std::int64_t lo,
                                               std::int64_t hi) const {
  if (!has(key)) return std::nullopt;
  const auto& n = node(key);
  auto i = n.as_integer();
  if (!i) fail(key, fmt::format("expected an integer, found {}", toml_kind_name(n)));
  std::int64_t v = i->get();
  if (v < lo || v > hi) {
    if (lo == 1 && v < 1) fail(key, fmt::format("must be positive, got {}", v));
    if (hi == std::numeric_limits<std::int64_t>::max())
      fail(key, fmt::format("must be at least {}, got {}", lo, v));
    fail(key, fmt::format("must be in [{}, {}], got {}", lo, hi, v));
  }
  return v;
}

std::optional<std::string> TomlTable::string(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const auto& n = node(key);
  if (auto s = n.as_string()) return s->get();
  fail(key, fmt::format("expected a string, found {}", toml_kind_name(n)));
}

std::optional<std::string> TomlTable::timestamp_text(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const auto& n = node(key);
  if (auto s = n.as_string()) return s->get();
  if (auto t = n.as_date_time()) {
    std::ostringstream text;
    text << t->get();  // toml++ writes RFC 3339: 2026-07-01T00:00:00+02:00
    return text.str();
  }
  fail(key, fmt::format("expected a time stamp (\"2026-07-01T00:00:00+02:00\", quoted or not), found {}",
                        toml_kind_name(n)));
}

std::optional<bool> TomlTable::boolean(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const auto& n = node(key);
  if (auto b = n.as_boolean()) return b->get();
  fail(key, fmt::format("expected true or false, found {}", toml_kind_name(n)));
}

std::optional<std::vector<double>> TomlTable::numbers(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const auto& n = node(key);
  if (n.is_number()) return std::vector<double>{*number(key)};
  auto a = n.as_array();
  if (!a) fail(key, fmt::format("expected a number or an array of numbers, found {}", toml_kind_name(n)));
  std::vector<double> out;
  for (const auto& e : *a) {
    if (auto i = e.as_integer()) {
      out.push_back(within_clock(key, static_cast<double>(i->get())));
    } else if (auto f = e.as_floating_point()) {
      if (!std::isfinite(f->get()))
        throw ConfigError(location_of(e.source(), file_), dotted(key),
                          "array elements must be finite numbers");
      out.push_back(within_clock(key, f->get()));
    } else {
      throw ConfigError(location_of(e.source(), file_), dotted(key),
                        fmt::format("array elements must be numbers, found {}", toml_kind_name(e)));
    }
  }
  return out;
}

std::optional<TomlTable> TomlTable::table(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const auto& n = node(key);
  auto t = n.as_table();
  if (!t) fail(key, fmt::format("expected a table, found {}", toml_kind_name(n)));
  return TomlTable(*t, dotted(key), file_);
}

std::vector<TomlTable> TomlTable::tables(const std::string& key) const {
  std::vector<TomlTable> out;
  if (!has(key)) return out;
  const auto& n = node(key);
  auto a = n.as_array();
  if (!a)
    fail(key, fmt::format("expected an array of tables ([[{}]]), found {}", dotted(key), toml_kind_name(n)));
  std::size_t i = 0;
  for (const auto& e : *a) {
    auto t = e.as_table();
    if (!t)
      throw ConfigError(location_of(e.source(), file_), dotted(key),
                        fmt::format("expected a table, found {}", toml_kind_name(e)));
    out.emplace_back(*t, fmt::format("{}[{}]", dotted(key), i++), file_);
  }
  return out;
}

void TomlTable::require_known(const std::vector<std::string>& known) const {
  for (const auto& [k, v] : table_) {
    std::string key(k.str());
    bool ok = false;
    for (const auto& kn : known) ok = ok || kn == key;
    if (!ok)
      throw ConfigError(location_of(k.source(), file_), dotted(key),
                        fmt::format("unknown key (known here: {})", fmt::join(known, ", ")));
  }
}

std::optional<std::vector<std::string>> TomlTable::strings(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const auto& n = node(key);
  if (auto str = n.as_string()) return std::vector<std::string>{str->get()};
  auto a = n.as_array();
  if (!a) fail(key, fmt::format("expected a string or an array of strings, found {}", toml_kind_name(n)));
  std::vector<std::string> out;
  for (const auto& e : *a) {
    auto str = e.as_string();
    if (!str)
      throw ConfigError(location_of(e.source(), file_), dotted(key),
                        fmt::format("array elements must be strings, found {}", toml_kind_name(e)));
    out.push_back(str->get());
  }
  return out;
}

std::vector<std::pair<std::string, TomlTable>> TomlTable::named_tables() const {
  std::vector<std::pair<std::string, TomlTable>> out;
  for (const auto& [k, v] : table_) {
    std::string key(k.str());
    auto t = v.as_table();
    if (!t)
      throw ConfigError(location_of(k.source(), file_), dotted(key),
                        fmt::format("expected a table, found {}", toml_kind_name(v)));
    out.emplace_back(key, TomlTable(*t, dotted(key), file_));
  }
  return out;
}

}  // namespace fleetwatt::core
