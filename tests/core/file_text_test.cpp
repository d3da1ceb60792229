// Reading a small text input whole: a file's bytes, and nothing (never an exception) for a path that is
// missing or is a folder, so each reader reports the bad path at its own key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "fleetwatt/core/file_text.hpp"

TEST_CASE("read_file_text gives a file's bytes and nothing for a missing path or a folder", "[core][file]") {
  const auto dir = std::filesystem::temp_directory_path() / "fleetwatt-file-text-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto file = dir / "a.toml";
  std::ofstream(file, std::ios::binary) << "x = 1\r\ny = \"\xc3\xa9\"\n";
  CHECK(fleetwatt::core::read_file_text(file) == std::string("x = 1\r\ny = \"\xc3\xa9\"\n"));
  CHECK_FALSE(fleetwatt::core::read_file_text(dir / "missing.toml"));
  // A folder opens as a stream on Linux, and reading it throws from inside the stream library.
  CHECK_FALSE(fleetwatt::core::read_file_text(dir));
  CHECK_FALSE(fleetwatt::core::read_file_text("//"));
  std::filesystem::remove_all(dir);
}
