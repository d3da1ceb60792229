// Bad-user-input errors. Every error names where the bad value came from (file, line, column, field) so
// that the command line can print one actionable line; library code throws, only tools/ catches. In core
// so that every parser (TOML, CSV, JSON, dates) reports errors the same way, whatever library it lives in.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace fleetwatt::core {

/// Where a value came from in a user's file; line and column are 1-based, 0 when unknown.
struct SourceLocation {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  /// "file:line:column", "file:line" or "file", depending on what is known.
  [[nodiscard]] std::string to_string() const;
};

/// Base of every bad-input error: what() is "file:line:col: field: message".
class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, std::string field, std::string message);

  [[nodiscard]] const SourceLocation& where() const noexcept { return where_; }
  [[nodiscard]] const std::string& field() const noexcept { return field_; }
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

 private:
  SourceLocation where_;
  std::string field_;
  std::string message_;
};

/// A scenario or model file (TOML) is malformed or has a bad value.
class ConfigError : public InputError {
 public:
  using InputError::InputError;
};

/// A record-oriented input (trace, CSV job list, telemetry) has a bad record.
class TraceFormatError : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace fleetwatt::core
