// Loosely typed parameters of a pluggable component (predictor, scheduler, placement, generator) as
// written in a scenario. The component's registry entry reads and validates them, so the scenario parser
// need not know every component; each value keeps its source location for error messages.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::workloads {

// The located error types live in core; workloads names them as its own so existing code reads on (the same
// using-declarations stand in job_spec.hpp and param_set.hpp, which include neither one another).
using core::ConfigError;
using core::InputError;
using core::SourceLocation;
using core::TraceFormatError;

struct ParamValue {
  std::variant<bool, std::int64_t, double, std::string, std::vector<double>> value;
  SourceLocation where;
};

/// Parameters of one component; getters throw ConfigError naming the file, line and key.
class ParamSet {
 public:
  ParamSet() = default;
  ParamSet(std::string section, SourceLocation where)
      : section_(std::move(section)), where_(std::move(where)) {}

  void set(std::string key, ParamValue v) { values_[std::move(key)] = std::move(v); }
  [[nodiscard]] bool has(std::string_view key) const {
    return values_.find(std::string(key)) != values_.end();
  }
  [[nodiscard]] bool empty() const noexcept { return values_.empty(); }

  [[nodiscard]] double get_double(std::string_view key, double fallback) const;
  [[nodiscard]] std::int64_t get_int(std::string_view key, std::int64_t fallback) const;
  [[nodiscard]] bool get_bool(std::string_view key, bool fallback) const;
  [[nodiscard]] std::string get_string(std::string_view key, std::string fallback) const;
  [[nodiscard]] std::vector<double> get_doubles(std::string_view key, std::vector<double> fallback) const;
  /// A positive number (> 0), or fallback when absent.
  [[nodiscard]] double get_positive(std::string_view key, double fallback) const;

  /// Throws for the first key not in `known`, naming it and listing the known ones.
  void require_known(const std::vector<std::string>& known) const;

  [[nodiscard]] const std::map<std::string, ParamValue>& values() const noexcept { return values_; }
  [[nodiscard]] const std::string& section() const noexcept { return section_; }
  [[nodiscard]] SourceLocation where_of(std::string_view key) const;

 private:
  std::string section_;  ///< dotted TOML path, for messages ("predictor", "scheduler")
  SourceLocation where_;
  std::map<std::string, ParamValue> values_;
};

}  // namespace fleetwatt::workloads
