// Typed access to a component's loosely typed scenario parameters, with located errors.
#include "fleetwatt/workloads/param_set.hpp"

#include <fmt/format.h>
#include <cmath>

namespace fleetwatt::workloads {

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

SourceLocation ParamSet::where_of(std::string_view key) const {
  auto it = values_.find(std::string(key));
  return it == values_.end() ? where_ : it->second.where;
}

static std::string dotted(const std::string& section, std::string_view key) {
  return section.empty() ? std::string(key) : section + "." + std::string(key);
}

double ParamSet::get_double(std::string_view key, double fallback) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) return fallback;
  if (auto* i = std::get_if<std::int64_t>(&it->second.value)) return static_cast<double>(*i);
  if (auto* d = std::get_if<double>(&it->second.value)) {
    if (!std::isfinite(*d))
      throw ConfigError(it->second.where, dotted(section_, key), "must be a finite number");
    return *d;
  }
  throw ConfigError(it->second.where, dotted(section_, key),
                    fmt::format("expected a number, found {}", type_name(it->second)));
}

double ParamSet::get_positive(std::string_view key, double fallback) const {
  double v = get_double(key, fallback);
  if (has(key) && !(v > 0.0))
    throw ConfigError(where_of(key), dotted(section_, key), fmt::format("must be positive, got {}", v));
  return v;
}

std::int64_t ParamSet::get_int(std::string_view key, std::int64_t fallback) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) return fallback;
  if (auto* i = std::get_if<std::int64_t>(&it->second.value)) return *i;
  throw ConfigError(it->second.where, dotted(section_, key),
                    fmt::format("expected an integer, found {}", type_name(it->second)));
}

bool ParamSet::get_bool(std::string_view key, bool fallback) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) return fallback;
  if (auto* b = std::get_if<bool>(&it->second.value)) return *b;
  throw ConfigError(it->second.where, dotted(section_, key),
                    fmt::format("expected true or false, found {}", type_name(it->second)));
}

std::string ParamSet::get_string(std::string_view key, std::string fallback) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) return fallback;
  if (auto* s = std::get_if<std::string>(&it->second.value)) return *s;
  throw ConfigError(it->second.where, dotted(section_, key),
                    fmt::format("expected a string, found {}", type_name(it->second)));
}

std::vector<double> ParamSet::get_doubles(std::string_view key, std::vector<double> fallback) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) return fallback;
  if (auto* a = std::get_if<std::vector<double>>(&it->second.value)) return *a;
  throw ConfigError(it->second.where, dotted(section_, key),
                    fmt::format("expected an array of numbers, found {}", type_name(it->second)));
}

void ParamSet::require_known(const std::vector<std::string>& known) const {
  for (const auto& [key, value] : values_) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == key;
    if (!ok)
      throw ConfigError(value.where, dotted(section_, key),
                        fmt::format("unknown key (known here: {})", fmt::join(known, ", ")));
  }
}

}  // namespace fleetwatt::workloads
