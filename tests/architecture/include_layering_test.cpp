// The libraries depend one way, core -> workloads -> models -> topologies -> sim -> results: no file of a
// library includes a header of a library after it (each folder's CMakeLists.txt says what it may include).
// The link order alone would not catch it: a header-only use of a later library compiles and links. Inside
// models, the predictors read fitted constants and never include how they are fitted (the *_fit.hpp
// headers, models/fit/).
#include <catch2/catch.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

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

// The project files `start` includes, directly or through other project headers ("fleetwatt/LIB/x.hpp" from
// LIB/include, a quoted local name beside the including file), relative to `root`.
std::set<std::string> include_closure(const std::filesystem::path& root,
                                      const std::vector<std::string>& start) {
  static const std::regex include(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::set<std::string> seen;
  std::vector<std::string> todo(start.begin(), start.end());
  while (!todo.empty()) {
    const std::string file = todo.back();
    todo.pop_back();
    if (!seen.insert(file).second) continue;
    std::ifstream in(root / file);
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string name = m[1];
      std::filesystem::path found;
      if (name.rfind("fleetwatt/", 0) == 0) {
        const auto lib = name.substr(10, name.find('/', 10) - 10);
        found = std::filesystem::path(lib) / "include" / name;
      } else {
        found = std::filesystem::path(file).parent_path() / name;
      }
      if (std::filesystem::exists(root / found)) todo.push_back(found.lexically_normal().generic_string());
    }
  }
  return seen;
}

// Whether a file is part of fitting: a *_fit header or source, or anything under models' fit folders.
bool is_fitting(const std::string& file) {
  const auto name = std::filesystem::path(file).stem().string();
  return file.find("/fit/") != std::string::npos ||
         (name.size() > 4 && name.compare(name.size() - 4, 4, "_fit") == 0);
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

TEST_CASE("the predictors never include how their constants are fitted", "[architecture]") {
  // The datasheet predictor and the ones built on it read the constants' headers (predictor_constants,
  // tensor_gemm, collectives, step_calibration); the fitting (predictor_fit, tensor_gemm_fit, collective_fit,
  // power_law_fit, models/fit/) sits above them and may change without touching a predictor.
  const auto root = fleetwatt::test::source_dir();
  const auto closure = include_closure(
      root, {"models/src/datasheet_predictor.cpp", "models/src/table_predictor.cpp",
             "models/src/banded_predictor.cpp", "models/src/first_principles_entries.cpp",
             "models/src/llm_step_time.cpp", "models/src/step_comm.cpp", "models/src/roofline.cpp"});
  REQUIRE(closure.count("models/include/fleetwatt/models/predictor_constants.hpp") == 1);
  REQUIRE(closure.count("models/include/fleetwatt/models/tensor_gemm.hpp") == 1);
  for (const auto& file : closure) {
    INFO(file);
    CHECK_FALSE(is_fitting(file));
  }
  // The check can fail: the fitting's own closure holds fitting.
  const auto fitting = include_closure(root, {"models/src/predictor_fit.cpp"});
  CHECK(fitting.count("models/include/fleetwatt/models/predictor_fit.hpp") == 1);
  CHECK(is_fitting("models/include/fleetwatt/models/predictor_fit.hpp"));
  CHECK(is_fitting("models/include/fleetwatt/models/fit/records.hpp"));
  CHECK_FALSE(is_fitting("models/include/fleetwatt/models/predictor_constants.hpp"));
}
