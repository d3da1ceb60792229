// The TOML table reader: every error names file:line:column and the dotted key; syntax errors too.
#include <catch2/catch.hpp>
#include <string>

#include "fleetwatt/core/toml_table.hpp"

using namespace fleetwatt::core;

namespace {

// The message of the ConfigError `f` throws, or "" when it throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("values are read with their types and ranges", "[toml]") {
  const auto root =
      parse_toml("n = 4\nx = 2.5\nname = \"a\"\non = true\nv = [1, 2.5]\ns = [\"p\", \"q\"]\n", "t.toml");
  const TomlTable t(root, "", "t.toml");
  CHECK(*t.integer("n", 1, 10) == 4);
  CHECK(*t.number("n") == 4.0);  // an integer is a number too
  CHECK(*t.number("x") == 2.5);
  CHECK(t.number("missing", 7.0) == 7.0);
  CHECK(*t.string("name") == "a");
  CHECK(*t.boolean("on"));
  CHECK(*t.numbers("v") == std::vector<double>{1.0, 2.5});
  CHECK(*t.numbers("x") == std::vector<double>{2.5});  // one number is a one-element array
  CHECK(*t.strings("s") == std::vector<std::string>{"p", "q"});
  CHECK_FALSE(t.string("missing"));
}

TEST_CASE("a bad value is reported at its key's line and column with the dotted path", "[toml]") {
  const auto root = parse_toml("[fleet]\nnodes = 0\n  gpu = 3\n[fleet.sub]\nk = \"x\"\n", "s.toml");
  const TomlTable top(root, "", "s.toml");
  const auto fleet = *top.table("fleet");
  CHECK(error_of([&] { (void)fleet.integer("nodes", 1, 100); }) ==
        "s.toml:2:1: fleet.nodes: must be positive, got 0");
  // Column 3: the key is indented by two blanks.
  CHECK(error_of([&] { (void)fleet.string("gpu"); }) ==
        "s.toml:3:3: fleet.gpu: expected a string, found an integer");
  CHECK(error_of([&] { (void)fleet.table("sub")->number("k"); }) ==
        "s.toml:5:1: fleet.sub.k: expected a number, found a string");
  CHECK(error_of([&] { (void)fleet.integer("nodes", 5, 9); }) ==
        "s.toml:2:1: fleet.nodes: must be in [5, 9], got 0");
}

TEST_CASE("unknown keys are errors that list the known ones", "[toml]") {
  const auto root = parse_toml("[fleet]\nnodes = 2\nnodez = 3\n", "s.toml");
  const TomlTable fleet = *TomlTable(root, "", "s.toml").table("fleet");
  CHECK(error_of([&] {
          fleet.require_known({"nodes", "gpu"});
        }) == "s.toml:3:1: fleet.nodez: unknown key (known here: nodes, gpu)");
  CHECK(error_of([&] { fleet.require_known({"nodes", "nodez"}); }).empty());
}

TEST_CASE("arrays of tables and named tables carry their paths", "[toml]") {
  const auto root =
      parse_toml("[[gpu]]\nid = \"a\"\n[[gpu]]\nid = 5\n[models.m1]\nx = 1\n[models.m2]\ny = 2\n", "p.toml");
  const TomlTable top(root, "", "p.toml");
  const auto gpus = top.tables("gpu");
  REQUIRE(gpus.size() == 2);
  CHECK(error_of([&] { (void)gpus[1].string("id"); }) ==
        "p.toml:4:1: gpu[1].id: expected a string, found an integer");
  const auto models = top.table("models")->named_tables();
  REQUIRE(models.size() == 2);
  CHECK(models[0].first == "m1");
  CHECK(models[1].second.dotted("y") == "models.m2.y");
  // Where a value begins, for offsets inside strings: `id = "a"` has its value at column 6.
  CHECK(gpus[0].value_where("id").column == 6);
  CHECK(gpus[0].where("id").column == 1);
}

TEST_CASE("syntax errors and unreadable files are located ConfigErrors", "[toml]") {
  const std::string syntax = error_of([] { (void)parse_toml("a = 1\nb = = 2\n", "bad.toml"); });
  CHECK(syntax.rfind("bad.toml:2:", 0) == 0);
  CHECK(error_of([] { (void)parse_toml_file("/no/such/file.toml"); }) ==
        "/no/such/file.toml: file: cannot be opened");
}

TEST_CASE("a time in seconds beyond what the clock can hold is bad input at its key", "[toml]") {
  // The integer-nanosecond clock spans ~292 years; inputs are held to 1e9 s (31.7 years) so that sums of a
  // few of them cannot overflow it mid-run (the issue's `1e+18 s is outside the simulated clock's range`).
  const auto root = parse_toml(
      "horizon_s = 1e18\nlimit_s = -2e9\nok_s = 9.9e8\nnodes = 1e18\n"
      "mix_s = [1, 3e9]\nv = [1, inf]\n",
      "s.toml");
  const TomlTable t(root, "", "s.toml");
  CHECK(error_of([&] { (void)t.number("horizon_s"); }) ==
        "s.toml:1:1: horizon_s: 1e+18 s is beyond the 1e+09 s (31.7 years) a simulated time may span");
  CHECK(error_of([&] { (void)t.number("limit_s"); }).find("limit_s: -2000000000 s is beyond") !=
        std::string::npos);
  CHECK(*t.number("ok_s") == 9.9e8);
  CHECK(*t.number("nodes") == 1e18);  // not a time: other checks bound it
  CHECK(error_of([&] { (void)t.numbers("mix_s"); }).find("mix_s: 3000000000 s is beyond") !=
        std::string::npos);
  CHECK(error_of([&] { (void)t.numbers("v"); }) == "s.toml:6:9: v: array elements must be finite numbers");
}
