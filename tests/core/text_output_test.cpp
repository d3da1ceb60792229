// Text outputs reach their name complete or not at all: the temporary file beside the target (with the
// process id) is renamed on success and removed on every failure.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using fleetwatt::core::write_text_output;

namespace {
std::size_t files_in(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}
}  // namespace

TEST_CASE("a text output is written whole, replaces an earlier file, and leaves no temporary", "[core]") {
  fleetwatt::test::TempDir dir;
  const auto target = dir / "out.csv";
  CHECK(fleetwatt::core::temporary_beside(target).parent_path() == target.parent_path());
  CHECK(fleetwatt::core::temporary_beside(target).string().find(".tmp-") != std::string::npos);
  write_text_output(target, "-o", [](std::ostream& out) { out << "a,b\n1,2\n"; });
  write_text_output(target, "-o", [](std::ostream& out) { out << "a,b\n3,4\n"; });
  std::ifstream in(target);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "a,b\n3,4\n");
  CHECK(files_in(dir.path()) == 1);
}

TEST_CASE("a failing text output leaves the earlier file and no temporary", "[core]") {
  fleetwatt::test::TempDir dir;
  const auto target = dir / "out.csv";
  write_text_output(target, "-o", [](std::ostream& out) { out << "old\n"; });
  CHECK_THROWS_WITH(write_text_output(target, "-o",
                                      [](std::ostream& out) {
                                        out << "half";
                                        throw std::runtime_error("stopped");
                                      }),
                    "stopped");
  std::ifstream in(target);
  std::string line;
  std::getline(in, line);
  CHECK(line == "old");
  CHECK(files_in(dir.path()) == 1);
  // A folder that is not there: a located error at the flag, nothing created.
  CHECK_THROWS_AS(write_text_output(dir / "missing" / "x.csv", "--csv", [](std::ostream&) {}),
                  fleetwatt::core::ConfigError);
  CHECK(files_in(dir.path()) == 1);
}
