// Loosely typed parameters of a pluggable component (predictor, scheduler, placement, topology kind, trace
// format) as written in a scenario, and the declaration each component makes of the parameters it takes.
// The component's registry entry checks a ParamSet against its declaration (unknown keys, deprecated
// spellings) and reads it with the declared defaults, so the scenario parser need not know every component
// and `fleetwatt list` prints the same declaration the checks use. Each value keeps its source location.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::core {

struct ParamValue {
  std::variant<bool, std::int64_t, double, std::string, std::vector<double>> value;
  SourceLocation where;
};

/// The TOML type a parameter takes.
enum class ParamType { boolean, integer, number, string, numbers };

/// A parameter's default: none (required, or computed at run time: see ParamSpec::default_text) or a value.
using ParamDefault = std::variant<std::monostate, bool, std::int64_t, double, std::string>;

/// One declared parameter of a registered component.
struct ParamSpec {
  std::string name;  ///< lowercase, with a lowercase unit suffix (`cap_w`, `idle_timeout_s`)
  ParamType type = ParamType::number;
  ParamDefault value;                ///< the default the component reads; monostate: none
  std::string default_text;          ///< shown instead of `value` when set ("required", "the signal's mean")
  std::string unit;                  ///< "W", "s", "J", "Gb/s", ... ; empty: dimensionless
  std::string doc;                   ///< one line
  std::vector<std::string> aliases;  ///< deprecated spellings, accepted with a warning

  /// The default as `fleetwatt list` prints it ("0.5", "queue", "required", ...).
  [[nodiscard]] std::string default_shown() const;
  /// True when the parameter has no default and must be given.
  [[nodiscard]] bool required() const noexcept { return default_text == "required"; }
};
using ParamSpecs = std::vector<ParamSpec>;

/// "boolean", "integer", "number", "string", "numbers".
[[nodiscard]] const char* to_string(ParamType t) noexcept;

/// Warnings found while reading a scenario (deprecated spellings), kept for the command line to print:
/// library code never prints. Each distinct message is kept once; safe to share across threads (policy
/// comparisons build schedulers two at a time).
class WarningSink {
 public:
  void add(std::string message);
  [[nodiscard]] std::vector<std::string> messages() const;
  /// Messages not returned by an earlier call of take_new (each message is printed once).
  [[nodiscard]] std::vector<std::string> take_new();

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
  std::set<std::string> seen_;
  std::size_t taken_ = 0;
};

/// Parameters of one component; getters throw ConfigError naming the file, line and key.
class ParamSet {
 public:
  ParamSet() = default;
  ParamSet(std::string section, SourceLocation where)
      : section_(std::move(section)), where_(std::move(where)) {}

  void set(std::string key, ParamValue v) { values_[std::move(key)] = std::move(v); }
  void erase(std::string_view key) { values_.erase(std::string(key)); }
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

  /// The same getters with the declared default of a checked set (see checked()); a required parameter
  /// that is absent is a ConfigError "missing" at the table, naming the dotted path where it belongs.
  [[nodiscard]] double get_double(std::string_view key) const;
  [[nodiscard]] std::int64_t get_int(std::string_view key) const;
  [[nodiscard]] bool get_bool(std::string_view key) const;
  [[nodiscard]] std::string get_string(std::string_view key) const;
  [[nodiscard]] double get_positive(std::string_view key) const;
  /// A number of zero or more, checked when the set gives it (a declared default is one already).
  [[nodiscard]] double get_non_negative(std::string_view key) const;

  /// This set checked against a component's declaration: deprecated spellings renamed to their names
  /// (one warning each, into the warning sink), and a ConfigError at the first key the declaration does
  /// not know, listing the known ones. The result reads its defaults from `specs`.
  [[nodiscard]] ParamSet checked(const ParamSpecs& specs) const;

  [[nodiscard]] const std::map<std::string, ParamValue>& values() const noexcept { return values_; }
  /// The keys in the order they are written (line, column): the first bad key reported is the first written.
  [[nodiscard]] std::vector<std::string> keys_in_source_order() const;
  [[nodiscard]] const std::string& section() const noexcept { return section_; }
  void set_section(std::string section) { section_ = std::move(section); }
  [[nodiscard]] const SourceLocation& where() const noexcept { return where_; }
  [[nodiscard]] SourceLocation where_of(std::string_view key) const;
  /// "section.key": the dotted path of a key of this set, for messages.
  [[nodiscard]] std::string dotted(std::string_view key) const;
  /// Where deprecation warnings go (the scenario's sink); none: they are dropped.
  void set_warnings(std::shared_ptr<WarningSink> sink) { warnings_ = std::move(sink); }
  [[nodiscard]] const std::shared_ptr<WarningSink>& warnings() const noexcept { return warnings_; }

 private:
  [[nodiscard]] const ParamSpec& spec(std::string_view key) const;
  [[noreturn]] void missing(const ParamSpec& s) const;

  std::string section_;  ///< dotted TOML path, for messages ("predictor", "scheduler.powercap")
  SourceLocation where_;
  std::map<std::string, ParamValue> values_;
  std::shared_ptr<const ParamSpecs> specs_;  ///< set by checked()
  std::shared_ptr<WarningSink> warnings_;
};

}  // namespace fleetwatt::core
