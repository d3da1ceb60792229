// `--set key=value` overrides written into a parsed scenario (see scenario_override.hpp). Every node written
// here carries the assignment as its source name, so the scenario's own checks report errors about it as
// coming from the command line rather than from a line of the file.
#include "fleetwatt/runs/scenario_override.hpp"

#include <fmt/format.h>

#include <cctype>
#include <memory>
#include <optional>
#include <vector>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::runs {
namespace {

using core::ConfigError;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// One segment of a dotted key: a name and, for `name[i]`, an array index.
struct Segment {
  std::string name;
  std::optional<std::size_t> index;
};

bool bare_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

// Text for a one-line message: control characters (a newline in a key) written as \uXXXX.
std::string printable(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? fmt::format("\\u{:04X}", u) : std::string(1, c);
  }
  return out;
}

std::vector<Segment> split_key(std::string_view key, const std::string& origin) {
  std::vector<Segment> out;
  std::size_t i = 0;
  auto fail = [&](const std::string& why) { throw ConfigError({origin, 0, 0}, printable(key), why); };
  if (key.empty()) fail("no key before '='");
  while (i <= key.size()) {
    Segment s;
    while (i < key.size() && bare_key_char(key[i])) s.name += key[i++];
    if (s.name.empty()) fail("a key segment is empty or has a character other than A-Z a-z 0-9 _ -");
    if (i < key.size() && key[i] == '[') {
      const std::size_t close = key.find(']', i);
      const std::string_view digits = close == std::string_view::npos ? "" : key.substr(i + 1, close - i - 1);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos ||
          digits.size() > 9)
        fail("an index must be [N], N a whole number from 0");
      s.index = std::stoul(std::string(digits));
      i = close + 1;
    }
    out.push_back(std::move(s));
    if (i == key.size()) break;
    if (key[i] != '.')
      fail(fmt::format("unexpected '{}' (keys are dotted: a.b[0].c)", printable(key.substr(i, 1))));
    ++i;
    if (i == key.size()) fail("the key ends with '.'");
  }
  return out;
}

// A TOML basic string holding `s` (quotes, backslashes and control characters escaped).
std::string toml_string_literal(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The value as a one-entry TOML document parsed under `source`, so that the node keeps that source name.
toml::table parse_value(std::string_view value, const std::string& source, const std::string& key) {
  try {
    return toml::parse(fmt::format("v = {}\n", value), source);
  } catch (const toml::parse_error& e) {
    // Text meant as a string, array, inline table or quoted string must be valid TOML; any other text
    // that is not a TOML value (a bare word: easy, fifo, h100) is a string.
    const char first = value.empty() ? '\0' : value.front();
    if (value.empty() || first == '[' || first == '{' || first == '"' || first == '\'')
      throw ConfigError({source, 0, 0}, key,
                        fmt::format("the value is not a TOML value ({})", std::string(e.description())));
  }
  try {
    return toml::parse(fmt::format("v = {}\n", toml_string_literal(value)), source);
  } catch (const toml::parse_error& e) {
    // Not even a string: bytes that are not UTF-8 (found by fuzzing; the parse error escaped as exit 3).
    throw ConfigError({source, 0, 0}, key,
                      fmt::format("the value is not text ({})", std::string(e.description())));
  }
}

// Writes `value` (moved, keeping its source) under `name` in `t`, replacing what was there. The old entry
// is erased first: a replaced entry would keep the file's key, and errors point at the key.
void put(toml::table& t, const std::string& name, toml::node&& value, const toml::source_region& src) {
  t.erase(name);
  toml::source_region key_src = src;
  std::move(value).visit([&](auto&& v) { t.insert(toml::key(name, std::move(key_src)), std::move(v)); });
}

const char* kind(const toml::node& n) {
  if (n.is_table()) return "a table";
  if (n.is_array()) return "an array";
  if (n.is_string()) return "a string";
  if (n.is_integer()) return "an integer";
  if (n.is_floating_point()) return "a number";
  if (n.is_boolean()) return "a boolean";
  return "a date or time";
}

}  // namespace

void check_override_key(std::string_view key, std::string_view origin) {
  (void)split_key(key, fmt::format("{} {}", origin, printable(key)));
}

std::string override_key(std::string_view assignment) {
  const auto eq = assignment.find('=');
  return std::string(trim(eq == std::string_view::npos ? assignment : assignment.substr(0, eq)));
}

void apply_override(toml::table& root, std::string_view assignment, std::string_view origin) {
  const std::string source = fmt::format("{} {}", origin, printable(assignment));
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos)
    throw ConfigError({std::string(origin), 0, 0}, std::string(trim(assignment)),
                      "expected key=value (for example fleet.nodes=2000)");
  const std::string key(trim(assignment.substr(0, eq)));
  const std::string_view value = trim(assignment.substr(eq + 1));
  const auto segments = split_key(key, source);
  toml::table parsed = parse_value(value, source, key);
  // "1\nfleet.nodes = 5" parses as two assignments: the second must not slip in unchecked.
  if (parsed.size() != 1)
    throw ConfigError({source, 0, 0}, key,
                      "the value is more than one TOML value (a newline and another key?)");
  toml::node& node = *parsed.get("v");
  // Keys written here point at the start of the assignment (line 1, so that TomlTable::where takes them).
  toml::source_region src;
  src.begin = {1, 1};
  src.end = {1, static_cast<toml::source_index>(assignment.size() + 1)};
  src.path = std::make_shared<const std::string>(source);

  toml::table* t = &root;
  std::string walked;
  for (std::size_t k = 0; k < segments.size(); ++k) {
    const Segment& s = segments[k];
    const bool last = k + 1 == segments.size();
    walked += (walked.empty() ? "" : ".") + s.name;
    toml::node* here = t->get(s.name);
    if (!s.index) {
      if (last) {
        put(*t, s.name, std::move(node), src);
        return;
      }
      if (!here) {
        put(*t, s.name, toml::table{}, src);
        here = t->get(s.name);
      }
      if (!here->is_table())
        throw ConfigError(
            {source, 0, 0}, key,
            fmt::format("{} is {}, not a table: no key can be set inside it", walked, kind(*here)));
      t = here->as_table();
      continue;
    }
    toml::array* a = here ? here->as_array() : nullptr;
    if (!a)
      throw ConfigError(
          {source, 0, 0}, key,
          here ? fmt::format("{} is {}, not an array: it has no [{}]", walked, kind(*here), *s.index)
               : fmt::format("{} is not in the scenario: it has no [{}]", walked, *s.index));
    if (*s.index >= a->size())
      throw ConfigError({source, 0, 0}, key,
                        fmt::format("{} has {} entries (indices from 0); [{}] is past its end", walked,
                                    a->size(), *s.index));
    walked += fmt::format("[{}]", *s.index);
    toml::node& element = *a->get(*s.index);
    if (last) {
      // Replace the element in place, keeping the array's other entries and their sources.
      std::move(node).visit(
          [&](auto&& v) { a->replace(a->cbegin() + static_cast<std::ptrdiff_t>(*s.index), std::move(v)); });
      return;
    }
    if (!element.is_table())
      throw ConfigError(
          {source, 0, 0}, key,
          fmt::format("{} is {}, not a table: no key can be set inside it", walked, kind(element)));
    t = element.as_table();
  }
}

}  // namespace fleetwatt::runs
