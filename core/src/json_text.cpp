// JSON string literals (quotes and backslashes escaped, control characters as \u00XX) and numbers (null
// where not finite).
#include "fleetwatt/core/json_text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace fleetwatt::core {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string json_number(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : std::string("null");
}

}  // namespace fleetwatt::core
