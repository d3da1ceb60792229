// The hostile numbers every reader's numeric fields are tested against (the *_numeric_edges_test.cpp
// files), and the two outcomes a reader may give for one: a core::InputError that locates it (file, line or
// record, field), or a finite value the test then checks. Any other exception escapes the helper and fails
// the test, as a crash or a sanitizer report would.
#pragma once

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::test {

/// An input's fields and their valid values, in the order its template names them.
using Fields = std::vector<std::pair<std::string, std::string>>;

/// The fields' names, in order: a loop over them gives a plain variable that a lambda can capture (clang
/// before 16 cannot capture a structured binding).
inline std::vector<std::string> field_names(const Fields& fields) {
  std::vector<std::string> names;
  for (const auto& f : fields) names.push_back(f.first);
  return names;
}

/// Whether `value` is one of numeric_edges()'s integers beyond 64 bits: in a TOML file, a syntax error
/// located at its line and column before any key is read (toml++ names none).
inline bool beyond_64_bits(const std::string& value) {
  return value == "9223372036854775808" || value == "-9223372036854775809" || value == "18446744073709551616";
}

/// ±1e300 (finite, overflows any sum), NaN and the infinities (as a reader's number parser spells them),
/// 2^63, -(2^63 + 1) and 2^64 (just past the 64-bit integers' range), 2^32 (past 32 bits) and a subnormal.
inline const std::vector<std::string>& numeric_edges() {
  static const std::vector<std::string> values = {"1e300",
                                                  "-1e300",
                                                  "nan",
                                                  "inf",
                                                  "-inf",
                                                  "9223372036854775808",
                                                  "-9223372036854775809",
                                                  "18446744073709551616",
                                                  "4294967296",
                                                  "1e-320"};
  return values;
}

/// The what() of the core::InputError `read` throws, or nothing when it returns.
template <class Read>
std::optional<std::string> input_error_of(Read&& read) {
  try {
    read();
  } catch (const core::InputError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

/// Checks that an error message ("file:line[:column]: field: message") starts at `file`:`line` and names
/// `field` (as its field, or in its message when the value is refused against another field's).
inline void check_located(const std::string& what, const std::string& file, unsigned line,
                          const std::string& field) {
  INFO(what);
  const std::string at = fmt::format("{}:{}:", file, line);
  CHECK(what.rfind(at, 0) == 0);
  // Case aside: a reader may name a column as it matched it ("power_w" for "power_W").
  const auto lower = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  CHECK(lower(what).find(lower(field), at.size()) != std::string::npos);
}

/// `text` with each "{name}" replaced by values[name] when given, otherwise by defaults[name].
template <class Map>
std::string fill(std::string text, const Map& defaults, const std::string& name, const std::string& value) {
  for (const auto& [key, fallback] : defaults) {
    const std::string mark = "{" + std::string(key) + "}";
    for (auto at = text.find(mark); at != std::string::npos; at = text.find(mark, at))
      text.replace(at, mark.size(), key == name ? value : std::string(fallback));
  }
  return text;
}

}  // namespace fleetwatt::test
