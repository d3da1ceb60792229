// What every fuzz target shares: the input as text, and the one outcome besides success that a reader may
// give for bad input (core::InputError, with its location). Anything else that escapes reaches libFuzzer as
// an uncaught exception (abort): a finding, as are crashes, hangs, leaks and sanitizer reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::fuzz {

/// The fuzzer's bytes as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `read`; a core::InputError is the reader refusing bad input, the expected outcome.
template <class Read>
void expect_input_errors(Read&& read) {
  try {
    std::forward<Read>(read)();
  } catch (const core::InputError&) {
  }
}

/// Splits an input holding two files at its first NUL byte (the second is empty when there is none).
inline std::pair<std::string, std::string> split_two(std::string_view text) {
  const auto cut = text.find('\0');
  if (cut == std::string_view::npos) return {std::string(text), std::string()};
  return {std::string(text.substr(0, cut)), std::string(text.substr(cut + 1))};
}

}  // namespace fleetwatt::fuzz
