// The libraries depend one way, core -> jobs -> models -> topologies -> sim -> results -> runs: no file
// of a library includes a header of a library after it (each folder's CMakeLists.txt says what it may
// include). The link order alone would not catch it: a header-only use of a later library compiles and links.
// Inside a library its rooms are ranked the same way (models: zoo -> hardware -> training -> predictors ->
// serving -> fit -> the registry above them, so the predictors read fitted constants and never include how
// they are fitted; topologies: graph -> fabrics -> flows; sim: fleet -> power -> serving -> policies ->
// engine; results: metrics -> hdf5).
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

constexpr std::array<const char*, 7> kLibraries = {"core", "jobs",    "models", "topologies",
                                                   "sim",  "results", "runs"};

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

// Whether a file is part of fitting: anything under models' fit folders.
bool is_fitting(const std::string& file) {
  return file.find("/fit/") != std::string::npos;
}

// The rooms of each library that has them, lowest first: a room may include only itself and the rooms
// before it; a file at the top of its library (none but models' registry and services) ranks above them all.
struct Rooms {
  const char* library;
  std::vector<std::string> rooms;
};
const std::vector<Rooms>& library_rooms() {
  static const std::vector<Rooms> rooms = {
      {"models", {"zoo", "hardware", "training", "predictors", "serving", "fit"}},
      {"topologies", {"graph", "fabrics", "flows"}},
      {"sim", {"fleet", "power", "serving", "policies", "engine"}},
      {"results", {"metrics", "hdf5"}},
  };
  return rooms;
}

// The rank of a room of `rooms` by its name; a name that is no room (a file at the top) ranks above them all.
std::size_t room_rank(const std::vector<std::string>& rooms, const std::string& room) {
  for (std::size_t i = 0; i < rooms.size(); ++i)
    if (room == rooms[i]) return i;
  return rooms.size();
}

// The room of a file of a library, from its path relative to the root ("" at the top).
std::string room_of(const std::filesystem::path& file) {
  std::vector<std::string> parts;
  for (const auto& p : file) parts.push_back(p.string());
  // LIB/src/<room>/x.cpp, LIB/include/fleetwatt/LIB/<room>/x.hpp
  if (parts.size() == 4 && parts[1] == "src") return parts[2];
  if (parts.size() == 6 && parts[1] == "include") return parts[4];
  return "";
}

// Every include of a file under `library`/ of a room that ranks above the file's own room: "file:line: the
// include". A quoted name without a folder is beside the including file, in its room.
std::vector<std::string> upward_room_includes(const std::filesystem::path& root, const Rooms& library) {
  const std::regex include(std::string(R"re(^\s*#\s*include\s*"fleetwatt/)re") + library.library +
                           R"re(/([^"]+)")re");
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root / library.library)) {
    const auto ext = e.path().extension();
    if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
    const auto file = std::filesystem::relative(e.path(), root);
    if (*std::next(file.begin()) == "bench") continue;  // benchmarks sit above the library
    const std::size_t own = room_rank(library.rooms, room_of(file));
    std::ifstream in(e.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string name = m[1];
      const auto slash = name.find('/');
      const std::string room = slash == std::string::npos ? "" : name.substr(0, slash);
      if (room_rank(library.rooms, room) > own)
        found.push_back(file.string() + ":" + std::to_string(n) + ": " + line);
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
      << "// a test file\n#include \"fleetwatt/sim/engine/engine.hpp\"\n";
  std::ofstream(dir / "core" / "src" / "good.cpp") << "#include \"fleetwatt/core/time.hpp\"\n";
  const auto found = upward_includes(dir.path(), "core");
  REQUIRE(found.size() == 1);
  CHECK(found[0] == "core/src/bad.cpp:2: #include \"fleetwatt/sim/engine/engine.hpp\"");
  // Including a library below is what a folder may do.
  std::filesystem::create_directories(dir / "results" / "src");
  std::ofstream(dir / "results" / "src" / "ok.cpp") << "#include \"fleetwatt/sim/engine/engine.hpp\"\n";
  CHECK(upward_includes(dir.path(), "results").empty());
}

TEST_CASE("no room of a library includes a room above it", "[architecture]") {
  const auto root = fleetwatt::test::source_dir();
  for (const auto& library : library_rooms()) {
    INFO(library.library);
    // Every room is a folder of the library (a renamed room would leave the check looking at nothing).
    for (const auto& room : library.rooms)
      CHECK(std::filesystem::is_directory(root / library.library / "src" / room));
    for (const auto& found : upward_room_includes(root, library)) FAIL_CHECK(found);
  }
  // The check can fail: a hardware file that includes a predictor, and a power file that includes the
  // engine, in a copy of the tree.
  fleetwatt::test::TempDir dir;
  std::filesystem::create_directories(dir / "models" / "src" / "hardware");
  std::ofstream(dir / "models" / "src" / "hardware" / "bad.cpp")
      << "#include \"fleetwatt/models/zoo/model_zoo.hpp\"\n"
      << "#include \"fleetwatt/models/predictors/power_predictor.hpp\"\n"
      << "#include \"fleetwatt/models/predictor_registry.hpp\"\n";
  const auto found = upward_room_includes(dir.path(), library_rooms()[0]);
  REQUIRE(found.size() == 2);
  CHECK(found[0] ==
        "models/src/hardware/bad.cpp:2: #include \"fleetwatt/models/predictors/power_predictor.hpp\"");
  std::filesystem::create_directories(dir / "sim" / "include" / "fleetwatt" / "sim" / "power");
  std::ofstream(dir / "sim" / "include" / "fleetwatt" / "sim" / "power" / "bad.hpp")
      << "#include \"fleetwatt/sim/fleet/cluster.hpp\"\n"
      << "#include \"fleetwatt/sim/engine/engine.hpp\"\n";
  const auto up = upward_room_includes(dir.path(), library_rooms()[2]);
  REQUIRE(up.size() == 1);
  CHECK(up[0] == "sim/include/fleetwatt/sim/power/bad.hpp:2: #include \"fleetwatt/sim/engine/engine.hpp\"");
  CHECK(room_of("models/include/fleetwatt/models/fit/records.hpp") == "fit");
  CHECK(room_of("models/src/predictor_registry.cpp").empty());
}

TEST_CASE("the predictors never include how their constants are fitted", "[architecture]") {
  // The predictors and every room below them read the constants' headers (predictor_constants, tensor_gemm,
  // collectives, step_calibration); the fitting (models/fit/) sits above them and may change without
  // touching a predictor. Checked on the whole include closure, so a header of the library below that
  // pointed back into fit would show too.
  const auto root = fleetwatt::test::source_dir();
  std::vector<std::string> start;
  for (const char* room : {"zoo", "hardware", "training", "predictors"})
    for (const auto& folder : {std::filesystem::path("models/src") / room,
                               std::filesystem::path("models/include/fleetwatt/models") / room})
      for (const auto& e : std::filesystem::directory_iterator(root / folder))
        start.push_back((folder / e.path().filename()).generic_string());
  REQUIRE(start.size() > 30);
  const auto closure = include_closure(root, start);
  REQUIRE(closure.count("models/include/fleetwatt/models/predictors/predictor_constants.hpp") == 1);
  REQUIRE(closure.count("models/include/fleetwatt/models/hardware/tensor_gemm.hpp") == 1);
  for (const auto& file : closure) {
    INFO(file);
    CHECK_FALSE(is_fitting(file));
  }
  // The check can fail: the fitting's own closure holds fitting.
  const auto fitting = include_closure(root, {"models/src/fit/predictor_fit.cpp"});
  CHECK(fitting.count("models/include/fleetwatt/models/fit/predictor_fit.hpp") == 1);
  CHECK(is_fitting("models/include/fleetwatt/models/fit/predictor_fit.hpp"));
  CHECK(is_fitting("models/include/fleetwatt/models/fit/records.hpp"));
  CHECK_FALSE(is_fitting("models/include/fleetwatt/models/predictors/predictor_constants.hpp"));
}
