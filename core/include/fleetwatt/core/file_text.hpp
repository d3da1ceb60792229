// A whole file read as bytes into a string: the one way a reader of a small text input (a scenario, a
// preset file, a region, a fitted table) takes its file. Each reader says itself, at its own key, what it
// cannot open; `missing_file` is the one check that an input a scenario names exists.
#pragma once

#include <filesystem>
#include <fstream>
#include <ios>
#include <iterator>
#include <optional>
#include <string>
#include <system_error>

namespace fleetwatt::core {

/// The bytes of `file`; nothing when it cannot be opened or read (a folder opens but cannot be read: the
/// stream library throws on reading it, whatever the stream's exception mask).
[[nodiscard]] inline std::optional<std::string> read_file_text(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  try {
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    return std::nullopt;
  }
}

/// Why `file`, named by an input, cannot be taken: "file not found: PATH", or, when the path cannot even be
/// looked up (a folder the user may not enter, a name too long), "cannot reach PATH: REASON"; nothing when
/// it exists. std::filesystem::exists throws on the second kind, which then escaped the located error.
[[nodiscard]] inline std::optional<std::string> missing_file(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) return std::nullopt;
  if (!ec || ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory)
    return "file not found: " + file.string();
  return "cannot reach " + file.string() + ": " + ec.message();
}

}  // namespace fleetwatt::core
