// Formatting of located input errors.
#include "fleetwatt/core/input_error.hpp"

#include <fmt/format.h>

namespace fleetwatt::core {

std::string SourceLocation::to_string() const {
  if (line == 0) return file;
  if (column == 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

static std::string compose(const SourceLocation& where, const std::string& field,
                           const std::string& message) {
  std::string s = where.to_string();
  if (!s.empty()) s += ": ";
  if (!field.empty()) s += field + ": ";
  return s + message;
}

InputError::InputError(SourceLocation where, std::string field, std::string message)
    : std::runtime_error(compose(where, field, message)),
      where_(std::move(where)),
      field_(std::move(field)),
      message_(std::move(message)) {}

}  // namespace fleetwatt::core
