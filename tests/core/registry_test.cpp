// The one registry shape: entries in the order added, found by name, an unknown name a located ConfigError
// that lists the known names, and a name registered twice refused.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/core/registry.hpp"

using namespace fleetwatt::core;

namespace {

using Doubler = std::function<int(int)>;

Registry<Doubler> two_entries() {
  return Registry<Doubler>("widget", {{"twice",
                                       "doubles",
                                       {{"gain", ParamType::number, 2.0, "", "", "the factor", {}}},
                                       [](int x) { return 2 * x; }},
                                      {"thrice", "triples", {}, [](int x) { return 3 * x; }}});
}

}  // namespace

TEST_CASE("a registry keeps its entries in order and finds them by name", "[registry]") {
  const auto r = two_entries();
  REQUIRE(r.entries().size() == 2);
  CHECK(r.entries()[0].name == "twice");
  CHECK(r.entries()[1].name == "thrice");
  CHECK(r.names() == "twice, thrice");
  REQUIRE(r.find("thrice") != nullptr);
  CHECK(r.find("thrice")->make(5) == 15);
  CHECK(r.find("twice")->params.at(0).name == "gain");
  CHECK(r.find("Twice") == nullptr);  // names are exact
  int n = 0;
  for (const auto& e : r) n += e.make(1);
  CHECK(n == 5);
}

TEST_CASE("an unknown name is an error at the scenario's key listing the known ones", "[registry]") {
  const auto r = two_entries();
  CHECK(r.at("twice", {"s.toml", 3, 8}, "widget.kind").make(4) == 8);
  try {
    (void)r.at("four", {"s.toml", 3, 8}, "widget.kind");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "s.toml:3:8: widget.kind: unknown widget 'four' (known: twice, thrice)");
  }
}

TEST_CASE("a name registered twice is a programming error", "[registry]") {
  auto r = two_entries();
  CHECK_THROWS_AS(r.add({"twice", "again", {}, [](int x) { return x; }}), fleetwatt::InvariantError);
  CHECK(r.entries().size() == 2);
}
