// The libraries depend one way, core -> workloads -> models -> topologies -> sim -> results: no file of a
// library includes a header of a library after it (each folder's CMakeLists.txt says what it may include).
// The link order alone would not catch it: a header-only use of a later library compiles and links.
#include <catch2/catch.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "test_support.hpp"

namespace {

constexpr std::array<const char*, 6> kLibraries = {"core",       "workloads", "models",
                                                   "topologies", "sim",       "results"};

std::size_t rank_of(const std::string& library) {
  for (std::size_t i = 0; i < kLibraries.size(); ++i)
    if (library == kLibraries[i]) return i;
  return kLibraries.size();  // tools, python: above every library
}

// Every `#include "fleetwatt/LIB/..."` of the files under `folder` whose LIB ranks above the folder's own:
// "file:line: the include".
std::vector<std::string> upward_includes(const std::filesystem::path& root, const std::string& folder) {
  static const std::regex include(R"(^\s*#\s*include\s*"fleetwatt/(\w+)/)");
  std::vector<std::string> found;
  const std::size_t own = rank_of(folder);
  for (const auto& e : std::filesystem::recursive_directory_iterator(root / folder)) {
    const auto ext = e.path().extension();
    if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".in")) continue;
    std::ifstream in(e.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (std::regex_search(line, m, include) && rank_of(m[1]) > own)
        found.push_back(std::filesystem::relative(e.path(), root).string() + ":" + std::to_string(n) + ": " +
                        line);
    }
  }
  return found;
}

}  // namespace

TEST_CASE("no library includes a header of a library above it", "[architecture]") {
  const auto root = fleetwatt::test::source_dir();
  for (const char* folder : kLibraries) {
    INFO(folder);
    for (const auto& found : upward_includes(root, folder)) FAIL_CHECK(found);
  }
}

TEST_CASE("the layering check finds an include that points up", "[architecture]") {
  // The check must be able to fail: a file in a copy of core/ that includes sim/.
  fleetwatt::test::TempDir dir;
  std::filesystem::create_directories(dir / "core" / "src");
  std::ofstream(dir / "core" / "src" / "bad.cpp")
      << "// a test file\n#include \"fleetwatt/sim/engine.hpp\"\n";
  std::ofstream(dir / "core" / "src" / "good.cpp") << "#include \"fleetwatt/core/time.hpp\"\n";
  const auto found = upward_includes(dir.path(), "core");
  REQUIRE(found.size() == 1);
  CHECK(found[0] == "core/src/bad.cpp:2: #include \"fleetwatt/sim/engine.hpp\"");
  // Including a library below is what a folder may do.
  std::filesystem::create_directories(dir / "results" / "src");
  std::ofstream(dir / "results" / "src" / "ok.cpp") << "#include \"fleetwatt/sim/engine.hpp\"\n";
  CHECK(upward_includes(dir.path(), "results").empty());
}
