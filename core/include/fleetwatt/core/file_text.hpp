// A whole file read as bytes into a string: the one way a reader of a small text input (a scenario, a
// preset file, a region, a fitted table) takes its file. Each reader says itself, at its own key, what it
// cannot open.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

namespace fleetwatt::core {

/// The bytes of `file`; nothing when it cannot be opened.
[[nodiscard]] inline std::optional<std::string> read_file_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace fleetwatt::core
