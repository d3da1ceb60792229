// Typed access to a component's loosely typed scenario parameters, with located errors; checking them
// against the component's declaration (unknown keys, deprecated spellings, types) and its defaults.
#include "fleetwatt/core/param_set.hpp"

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/core/time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

namespace fleetwatt::core {

namespace {
template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

const char* type_name(const ParamValue& v) {
  return std::visit(
      Overloaded{[](bool) { return "a boolean"; }, [](std::int64_t) { return "an integer"; },
                 [](double) { return "a number"; }, [](const std::string&) { return "a string"; },
                 [](const std::vector<double>&) { return "an array"; }},
      v.value);
}
}  // namespace

const char* to_string(ParamType t) noexcept {
  switch (t) {
    case ParamType::boolean:
      return "boolean";
    case ParamType::integer:
      return "integer";
    case ParamType::number:
      return "number";
    case ParamType::string:
      return "string";
    case ParamType::numbers:
      return "numbers";
  }
  return "?";
}

std::string ParamSpec::default_shown() const {
  if (!default_text.empty()) return default_text;
  return std::visit(Overloaded{[](std::monostate) { return std::string("-"); },
                               [](bool b) { return std::string(b ? "true" : "false"); },
                               [](std::int64_t i) { return fmt::format("{}", i); },
                               [](double d) { return fmt::format("{}", d); },
                               [](const std::string& s) { return fmt::format("\"{}\"", s); }},
                    value);
}

void WarningSink::add(std::string message) {
  std::lock_guard lock(mutex_);
  if (seen_.insert(message).second) messages_.push_back(std::move(message));
}

std::vector<std::string> WarningSink::messages() const {
  std::lock_guard lock(mutex_);
  return messages_;
}

std::vector<std::string> WarningSink::take_new() {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out(messages_.begin() + static_cast<std::ptrdiff_t>(taken_), messages_.end());
  taken_ = messages_.size();
  return out;
}

SourceLocation ParamSet::where_of(std::string_view key) const {
  auto it = values_.find(std::string(key));
  return it == values_.end() ? where_ : it->second.where;
}

std::string ParamSet::dotted(std::string_view key) const {
  return section_.empty() ? std::string(key) : section_ + "." + std::string(key);
}

namespace {
struct UnitScale {
  std::string_view suffix;
  double most;
  std::string_view unit;
};
constexpr UnitScale kPowerEnergyScales[] = {
    {"_w", 1e9, "W"}, {"_kw", 1e6, "kW"}, {"_j", 3.2e16, "J"}, {"_kwh", 8.8e9, "kWh"}, {"_wh", 8.8e12, "Wh"}};
}  // namespace

double ParamSet::get_double(std::string_view key, double fallback) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) return fallback;
  double v = 0.0;
  if (auto* i = std::get_if<std::int64_t>(&it->second.value)) {
    v = static_cast<double>(*i);
  } else if (auto* d = std::get_if<double>(&it->second.value)) {
    if (!std::isfinite(*d)) throw ConfigError(it->second.where, dotted(key), "must be a finite number");
    v = *d;
  } else {
    throw ConfigError(it->second.where, dotted(key),
                      fmt::format("expected a number, found {}", type_name(it->second)));
  }
  // A parameter in seconds (`_s`) ends up on the integer-nanosecond clock, as a scenario's own keys do
  // (TomlTable::within_clock): 1e300 s there was an exception with no location.
  if (key.size() > 2 && key.substr(key.size() - 2) == "_s" && std::fabs(v) > kMaxInputSeconds)
    throw ConfigError(it->second.where, dotted(key),
                      fmt::format("{} s is beyond the {:.0e} s (31.7 years) a simulated time may span", v,
                                  kMaxInputSeconds));
  // Powers and energies are summed over servers and intervals into a run's totals: beyond a campus's scale
  // they overflow them (a sleeping node at 1e300 W made a day's energy infinite). The bounds are far above
  // any real figure: 1 GW for a power, 1 GW for a year as an energy.
  for (const auto& [suffix, most, unit] : kPowerEnergyScales)
    if (key.size() > suffix.size() && key.substr(key.size() - suffix.size()) == suffix && std::fabs(v) > most)
      throw ConfigError(it->second.where, dotted(key),
                        fmt::format("{} {} is beyond the {:.2g} {} a fleet's power or energy may reach", v,
                                    unit, most, unit));
  return v;
}

double ParamSet::get_positive(std::string_view key, double fallback) const {
  double v = get_double(key, fallback);
  if (has(key) && !(v > 0.0))
    throw ConfigError(where_of(key), dotted(key), fmt::format("must be positive, got {}", v));
  return v;
}

std::int64_t ParamSet::get_int(std::string_view key, std::int64_t fallback) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) return fallback;
  if (auto* i = std::get_if<std::int64_t>(&it->second.value)) return *i;
  throw ConfigError(it->second.where, dotted(key),
                    fmt::format("expected an integer, found {}", type_name(it->second)));
}

bool ParamSet::get_bool(std::string_view key, bool fallback) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) return fallback;
  if (auto* b = std::get_if<bool>(&it->second.value)) return *b;
  throw ConfigError(it->second.where, dotted(key),
                    fmt::format("expected true or false, found {}", type_name(it->second)));
}

std::string ParamSet::get_string(std::string_view key, std::string fallback) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) return fallback;
  if (auto* s = std::get_if<std::string>(&it->second.value)) return *s;
  throw ConfigError(it->second.where, dotted(key),
                    fmt::format("expected a string, found {}", type_name(it->second)));
}

std::vector<double> ParamSet::get_doubles(std::string_view key, std::vector<double> fallback) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) return fallback;
  if (auto* a = std::get_if<std::vector<double>>(&it->second.value)) return *a;
  throw ConfigError(it->second.where, dotted(key),
                    fmt::format("expected an array of numbers, found {}", type_name(it->second)));
}

namespace {

// Whether a value may be read as the declared type (an integer is a number; one number is an array of one).
bool fits(ParamType t, const ParamValue& v) {
  switch (t) {
    case ParamType::boolean:
      return std::holds_alternative<bool>(v.value);
    case ParamType::integer:
      return std::holds_alternative<std::int64_t>(v.value);
    case ParamType::number:
      return std::holds_alternative<std::int64_t>(v.value) || std::holds_alternative<double>(v.value);
    case ParamType::string:
      return std::holds_alternative<std::string>(v.value);
    case ParamType::numbers:
      return !std::holds_alternative<bool>(v.value) && !std::holds_alternative<std::string>(v.value);
  }
  return false;
}

const char* expected(ParamType t) {
  switch (t) {
    case ParamType::boolean:
      return "true or false";
    case ParamType::integer:
      return "an integer";
    case ParamType::number:
      return "a number";
    case ParamType::string:
      return "a string";
    case ParamType::numbers:
      return "an array of numbers";
  }
  return "?";
}

}  // namespace

std::vector<std::string> ParamSet::keys_in_source_order() const {
  std::vector<std::string> keys;
  for (const auto& [k, v] : values_) keys.push_back(k);
  std::stable_sort(keys.begin(), keys.end(), [this](const std::string& a, const std::string& b) {
    const auto& wa = values_.at(a).where;
    const auto& wb = values_.at(b).where;
    return std::tie(wa.line, wa.column) < std::tie(wb.line, wb.column);
  });
  return keys;
}

ParamSet ParamSet::checked(const ParamSpecs& specs) const {
  ParamSet out(section_, where_);
  out.warnings_ = warnings_;
  out.specs_ = std::make_shared<const ParamSpecs>(specs);
  std::vector<std::string> known;
  for (const auto& s : specs) known.push_back(s.name);
  for (const auto& key : keys_in_source_order()) {
    const ParamValue& value = values_.at(key);
    const ParamSpec* match = nullptr;
    bool alias = false;
    for (const auto& s : specs) {
      if (s.name == key) match = &s;
      if (!match && std::find(s.aliases.begin(), s.aliases.end(), key) != s.aliases.end()) {
        match = &s;
        alias = true;
      }
      if (match) break;
    }
    if (!match)
      throw ConfigError(value.where, dotted(key),
                        known.empty() ? std::string("unknown key (this takes no parameters)")
                                      : fmt::format("unknown key (known here: {})", fmt::join(known, ", ")));
    if (alias) {
      if (has(match->name))
        throw ConfigError(value.where, dotted(key),
                          fmt::format("given twice: {} is the deprecated spelling of {}", key, match->name));
      if (warnings_)
        warnings_->add(
            fmt::format("{}: {} is deprecated; write {}", value.where.to_string(), dotted(key), match->name));
    }
    if (!fits(match->type, value))
      throw ConfigError(value.where, dotted(key),
                        fmt::format("expected {}, found {}", expected(match->type), type_name(value)));
    out.values_[match->name] = value;
  }
  return out;
}

const ParamSpec& ParamSet::spec(std::string_view key) const {
  if (specs_)
    for (const auto& s : *specs_)
      if (s.name == key) return s;
  FLEETWATT_FAIL(
      fmt::format("{}: no declared parameter '{}' (read it from a checked set)", section_, std::string(key)));
}

void ParamSet::missing(const ParamSpec& s) const {
  throw ConfigError(
      where_, dotted(s.name),
      s.required() ? fmt::format("missing ({})", s.doc) : fmt::format("no default: {}", s.default_shown()));
}

double ParamSet::get_double(std::string_view key) const {
  const ParamSpec& s = spec(key);
  if (has(key)) return get_double(key, 0.0);
  if (const auto* d = std::get_if<double>(&s.value)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&s.value)) return static_cast<double>(*i);
  missing(s);
}

double ParamSet::get_positive(std::string_view key) const {
  const ParamSpec& s = spec(key);
  if (has(key)) return get_positive(key, 0.0);
  return get_double(s.name);
}

double ParamSet::get_non_negative(std::string_view key) const {
  const double v = get_double(key);
  if (has(key) && !(v >= 0.0))
    throw ConfigError(where_of(key), dotted(key), fmt::format("must be zero or more, got {}", v));
  return v;
}

std::int64_t ParamSet::get_int(std::string_view key) const {
  const ParamSpec& s = spec(key);
  if (has(key)) return get_int(key, 0);
  if (const auto* i = std::get_if<std::int64_t>(&s.value)) return *i;
  missing(s);
}

bool ParamSet::get_bool(std::string_view key) const {
  const ParamSpec& s = spec(key);
  if (has(key)) return get_bool(key, false);
  if (const auto* b = std::get_if<bool>(&s.value)) return *b;
  missing(s);
}

std::string ParamSet::get_string(std::string_view key) const {
  const ParamSpec& s = spec(key);
  if (has(key)) return get_string(key, "");
  if (const auto* v = std::get_if<std::string>(&s.value)) return *v;
  missing(s);
}

}  // namespace fleetwatt::core
