// Dotted-key overrides of a scenario (the Python package's load_scenario(**overrides); a command line's
// --set can share them): the overridden value is read as if the file held it, and a bad key or value is the
// same located error.
#include <catch2/catch.hpp>

#include "fleetwatt/workloads/scenario_loader.hpp"
#include "scenario_test_support.hpp"

using namespace fleetwatt::workloads;
using fleetwatt::test::kJobs;

namespace {

const std::string kText = "seed = 3\n[fleet]\nnodes = 10\ngpus_per_node = 8\n" + kJobs;

std::string error_with(const std::vector<ScenarioOverride>& overrides) {
  try {
    (void)parse_scenario(kText, "s.toml", overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("overrides replace and add keys, of every TOML kind", "[scenario][overrides]") {
  const std::vector<ScenarioOverride> o{{"fleet.nodes", "200"},
                                        {"seed", "9"},
                                        {"facility.pue", "1.5"},
                                        {"scheduler.policy", "sjf"},  // a bare word is a string
                                        {"scheduler.placement", "\"pack\""},
                                        {"output.gpu_changes", "false"}};
  const Scenario s = parse_scenario(kText, "s.toml", o);
  CHECK(s.fleet.nodes == 200);
  CHECK(s.fleet.gpus_per_node == 8);
  CHECK(s.seed == 9);
  CHECK(s.facility.pue == 1.5);
  CHECK(s.scheduler.policy == "sjf");
  CHECK(s.scheduler.placement == "pack");
  CHECK_FALSE(s.output.gpu_changes);
  // The kept text is the overridden document: read again, it gives the same scenario.
  const Scenario again = parse_scenario(s.text, "s.toml");
  CHECK(again.fleet.nodes == 200);
  CHECK(again.scheduler.policy == "sjf");
  CHECK(s.text.rfind("# s.toml with fleet.nodes = 200;", 0) == 0);
  // No overrides: the file's own text.
  CHECK(parse_scenario(kText, "s.toml", std::vector<ScenarioOverride>{}).text == kText);
}

TEST_CASE("overridden keys are checked like the file's", "[scenario][overrides]") {
  // A key the file lacks: at the file (no line); one it has: where the file writes it (line 3, column 1).
  CHECK(error_with({{"fleet.nodez", "3"}}).rfind("s.toml: fleet.nodez: unknown key", 0) == 0);
  CHECK(error_with({{"flet.nodes", "3"}}).rfind("s.toml: flet: unknown key", 0) == 0);
  CHECK(error_with({{"fleet.nodes", "\"many\""}}).rfind("s.toml:3:1: fleet.nodes: ", 0) == 0);
  CHECK(error_with({{"fleet.nodes", "-1"}}).rfind("s.toml:3:1: fleet.nodes: ", 0) == 0);
  CHECK(error_with({{"fleet.nodes.x", "1"}}) ==
        "s.toml: fleet.nodes.x: fleet.nodes is not a table: no key can be set in it");
  CHECK(error_with({{"fleet..nodes", "1"}}) ==
        "s.toml: fleet..nodes: an override key needs a name between every two dots");
}
