// Strict, located access to one TOML table: every read names file:line:column and the dotted key on error,
// and require_known() turns misspelt keys into errors instead of silently ignored settings. The one TOML
// reader of fleetwatt: scenario, topology, GPU preset, model and record files all go through it, so their
// errors read alike. toml++ is slow to compile: include this header only in translation units that parse.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::core {

/// Where a TOML node or key begins, in `file`.
[[nodiscard]] SourceLocation location_of(const toml::source_region& r, const std::string& file);
/// "a string", "an integer", ... for messages about a value of the wrong kind.
[[nodiscard]] const char* toml_kind_name(const toml::node& n) noexcept;

/// Parses TOML text; a syntax error becomes a ConfigError at its file:line:column (no key: there is none).
[[nodiscard]] toml::table parse_toml(std::string_view text, const std::string& file);
/// Reads and parses a TOML file; an unreadable file is a ConfigError naming it.
[[nodiscard]] toml::table parse_toml_file(const std::filesystem::path& path);

/// A read-only view of one table of a parsed document (which must outlive it), with its dotted path.
class TomlTable {
 public:
  TomlTable(const toml::table& table, std::string path, std::string file)
      : table_(table), path_(std::move(path)), file_(std::move(file)) {}

  [[nodiscard]] bool has(const std::string& key) const { return table_.contains(key); }
  /// "path.key", or "key" at the top level.
  [[nodiscard]] std::string dotted(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  /// Where the table itself begins.
  [[nodiscard]] SourceLocation where() const { return location_of(table_.source(), file_); }
  /// Where `key` is written (the key, not its value); the table's location when it is absent.
  [[nodiscard]] SourceLocation where(const std::string& key) const;
  /// Where `key`'s value begins (for offsets inside a string); the table's location when it is absent.
  [[nodiscard]] SourceLocation value_where(const std::string& key) const;
  /// Throws ConfigError at `key` naming its dotted path.
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

  /// A number; a key in seconds (ending in `_s`) must lie within ±kMaxInputSeconds (core/time.hpp).
  [[nodiscard]] std::optional<double> number(const std::string& key) const;
  [[nodiscard]] double number(const std::string& key, double fallback) const {
    return number(key).value_or(fallback);
  }
  /// A number >= lo (or > lo when strict).
  [[nodiscard]] std::optional<double> number_at_least(const std::string& key, double lo, bool strict) const;
  /// A number in [lo, hi]: for values whose plausible range is known (finite but absurd input such as
  /// pue = 1e308 would otherwise overflow sums into inf).
  [[nodiscard]] std::optional<double> number_in(const std::string& key, double lo, double hi) const;
  [[nodiscard]] std::optional<std::int64_t> integer(const std::string& key, std::int64_t lo,
                                                    std::int64_t hi) const;
  [[nodiscard]] std::optional<std::string> string(const std::string& key) const;
  /// A time stamp's text: a string, or a TOML date-time written unquoted (as `--set key=2026-07-01T00:00:00Z`
  /// gives it), in ISO 8601 with its offset.
  [[nodiscard]] std::optional<std::string> timestamp_text(const std::string& key) const;
  [[nodiscard]] std::optional<bool> boolean(const std::string& key) const;
  /// An array of numbers, or a single number taken as a one-element array.
  [[nodiscard]] std::optional<std::vector<double>> numbers(const std::string& key) const;
  /// An array of strings, or a single string taken as a one-element array.
  [[nodiscard]] std::optional<std::vector<std::string>> strings(const std::string& key) const;
  [[nodiscard]] std::optional<TomlTable> table(const std::string& key) const;
  /// Array of tables ([[key]]); empty when absent.
  [[nodiscard]] std::vector<TomlTable> tables(const std::string& key) const;
  /// Every value of this table that is a table, by key (toml++ keeps keys sorted), for tables keyed by a
  /// user's names ([models.NAME]); a non-table value there is an error.
  [[nodiscard]] std::vector<std::pair<std::string, TomlTable>> named_tables() const;
  /// Throws for the first key not in `known`.
  void require_known(const std::vector<std::string>& known) const;

  [[nodiscard]] const toml::table& raw() const noexcept { return table_; }
  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  [[nodiscard]] double within_clock(const std::string& key, double v) const;
  const toml::node& node(const std::string& key) const { return *table_.get(key); }

  const toml::table& table_;
  std::string path_;
  std::string file_;
};

}  // namespace fleetwatt::core
