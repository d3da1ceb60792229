// Pieces of JSON text that the commands and the Python package print by hand (a fixed key order and the
// shortest round-trip numbers of fmt), so the two print the same bytes.
#pragma once

#include <string>
#include <string_view>

namespace fleetwatt::core {

/// A JSON string literal (quoted, with quotes, backslashes and control characters escaped).
[[nodiscard]] std::string json_string(std::string_view s);

/// A JSON number: fmt's shortest round-trip text, or null for NaN and the infinities, which JSON has no
/// spelling for (`inf` and `nan` break every parser).
[[nodiscard]] std::string json_number(double v);

}  // namespace fleetwatt::core
