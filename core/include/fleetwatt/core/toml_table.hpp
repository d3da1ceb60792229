// Strict, located access to one TOML table: every read names file:line:column and the dotted key on error,
// and require_known() turns misspelt keys into errors instead of silently ignored settings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "fleetwatt/workloads/input_error.hpp"
#include "fleetwatt/workloads/param_set.hpp"

namespace fleetwatt::workloads {

SourceLocation location_of(const toml::source_region& r, const std::string& file);

class TomlTable {
 public:
  TomlTable(const toml::table& table, std::string path, std::string file)
      : table_(table), path_(std::move(path)), file_(std::move(file)) {}

  [[nodiscard]] bool has(const std::string& key) const { return table_.contains(key); }
  [[nodiscard]] std::string dotted(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  [[nodiscard]] SourceLocation where() const { return location_of(table_.source(), file_); }
  [[nodiscard]] SourceLocation where(const std::string& key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

  [[nodiscard]] std::optional<double> number(const std::string& key) const;
  [[nodiscard]] double number(const std::string& key, double fallback) const {
    return number(key).value_or(fallback);
  }
  /// A number >= lo (or > lo when strict).
  [[nodiscard]] std::optional<double> number_at_least(const std::string& key, double lo, bool strict) const;
  [[nodiscard]] std::optional<std::int64_t> integer(const std::string& key, std::int64_t lo,
                                                    std::int64_t hi) const;
  [[nodiscard]] std::optional<std::string> string(const std::string& key) const;
  [[nodiscard]] std::optional<bool> boolean(const std::string& key) const;
  /// An array of numbers, or a single number taken as a one-element array.
  [[nodiscard]] std::optional<std::vector<double>> numbers(const std::string& key) const;
  [[nodiscard]] std::optional<TomlTable> table(const std::string& key) const;
  /// Array of tables ([[key]]); empty when absent.
  [[nodiscard]] std::vector<TomlTable> tables(const std::string& key) const;
  /// Throws for the first key not in `known`.
  void require_known(const std::vector<std::string>& known) const;
  /// Scalars and numeric arrays whose keys are not in `taken`, as a ParamSet for a component's registry.
  [[nodiscard]] ParamSet params_except(const std::vector<std::string>& taken) const;

  [[nodiscard]] const toml::table& raw() const noexcept { return table_; }
  [[nodiscard]] const std::string& file() const noexcept { return file_; }

 private:
  const toml::node& node(const std::string& key) const { return *table_.get(key); }

  const toml::table& table_;
  std::string path_;
  std::string file_;
};

}  // namespace fleetwatt::workloads
