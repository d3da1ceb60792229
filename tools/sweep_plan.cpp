// Grid axes parsed from the command line and multiplied out into sweep members.
#include "sweep_plan.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <set>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::tools {

namespace {

using core::ConfigError;

constexpr std::size_t kMaxMembers = 1000000;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<std::int64_t> whole_number(std::string_view s) {
  s = trim(s);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// The elements of a TOML-like array's inside, split at the commas outside quotes, brackets and braces, so
// that each element can be given to --set as written (`[1.8e6, "a,b", [1, 2], easy]`).
std::vector<std::string> split_elements(std::string_view inner, const std::string& key) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < inner.size(); ++i) {
    const char c = inner[i];
    if (quote) {
      cur += c;
      if (c == '\\' && quote == '"' && i + 1 < inner.size()) {
        cur += inner[++i];
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.emplace_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (quote || depth != 0)
    throw ConfigError({}, "--grid " + key, "unbalanced quotes or brackets in the values");
  if (!trim(cur).empty() || !out.empty()) out.emplace_back(trim(cur));
  for (const auto& v : out)
    if (v.empty()) throw ConfigError({}, "--grid " + key, "an empty value in the list");
  return out;
}

}  // namespace

SweepAxis parse_grid_axis(std::string_view spec) {
  const auto eq = spec.find('=');
  if (eq == std::string_view::npos)
    throw ConfigError({}, "--grid", fmt::format("expected KEY=[v1, v2, ...] or KEY=A..B, got '{}'", spec));
  SweepAxis axis;
  axis.key = std::string(trim(spec.substr(0, eq)));
  if (axis.key.empty()) throw ConfigError({}, "--grid", fmt::format("no key before '=' in '{}'", spec));
  const std::string_view values = trim(spec.substr(eq + 1));
  const std::string where = "--grid " + axis.key;
  if (values.size() >= 2 && values.front() == '[' && values.back() == ']') {
    axis.values = split_elements(values.substr(1, values.size() - 2), axis.key);
  } else if (const auto dots = values.find(".."); dots != std::string_view::npos) {
    const auto a = whole_number(values.substr(0, dots)), b = whole_number(values.substr(dots + 2));
    if (!a || !b || *b < *a)
      throw ConfigError({}, where,
                        fmt::format("a range is A..B, whole numbers with A <= B, got '{}'", values));
    if (static_cast<std::uint64_t>(*b - *a) >= kMaxMembers)
      throw ConfigError({}, where, fmt::format("the range {} has more than {} values", values, kMaxMembers));
    for (std::int64_t v = *a; v <= *b; ++v) axis.values.push_back(std::to_string(v));
  } else {
    if (values.empty()) throw ConfigError({}, where, "no value after '='");
    axis.values.emplace_back(values);
  }
  if (axis.values.empty()) throw ConfigError({}, where, "no values ([] is empty)");
  return axis;
}

std::string SweepMember::name() const {
  return fmt::format("m{:06}", index);
}

std::string SweepMember::label() const {
  std::vector<std::string> parts = overrides;
  if (seed) parts.push_back(fmt::format("seed={}", *seed));
  if (!band.empty()) parts.push_back("band=" + band);
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::vector<SweepMember> expand_sweep(const std::vector<SweepAxis>& axes) {
  std::set<std::string> keys;
  std::size_t count = 1;
  for (const auto& a : axes) {
    const std::string where = a.key == "band" ? "--band" : "--grid " + a.key;
    if (!keys.insert(a.key).second) throw ConfigError({}, where, "the key is given twice");
    for (const auto& v : a.values) {
      if (a.key == "seed" && (!whole_number(v) || *whole_number(v) < 0))
        throw ConfigError({}, where, fmt::format("a seed is a whole number from 0, got '{}'", v));
      if (a.key == "band" && v != "low" && v != "mid" && v != "high")
        throw ConfigError({}, where, fmt::format("a band is low, mid or high, got '{}'", v));
    }
    count *= a.values.size();
    if (count > kMaxMembers)
      throw ConfigError({}, where, fmt::format("the sweep would have more than {} members", kMaxMembers));
  }
  std::vector<SweepMember> members(count);
  for (std::size_t i = 0; i < count; ++i) {
    SweepMember& m = members[i];
    m.index = i;
    // Mixed-radix digits of i, the last axis the least significant.
    std::size_t rest = i, stride = count;
    for (const auto& a : axes) {
      stride /= a.values.size();
      const std::string& v = a.values[rest / stride];
      rest %= stride;
      if (a.key == "seed") {
        m.seed = static_cast<std::uint64_t>(*whole_number(v));
      } else if (a.key == "band") {
        m.band = v;
      } else {
        m.overrides.push_back(a.key + "=" + v);
      }
    }
  }
  return members;
}

}  // namespace fleetwatt::tools
