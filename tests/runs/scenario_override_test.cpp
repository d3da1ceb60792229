// `--set key=value` overrides (runs/scenario_override.hpp): values of every TOML kind land where the
// dotted key says, arrays are indexed from 0, and every bad assignment or bad overridden value is refused
// with one message naming the assignment and the key, not a line of the file.
#include <catch2/catch.hpp>

#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/runs/scenario_override.hpp"
#include "scenario_test_support.hpp"

using namespace fleetwatt::jobs;
using namespace fleetwatt::runs;
using fleetwatt::test::kJobs;

namespace {

const std::string kBase = "seed = 3\n[fleet]\nnodes = 10\ngpus_per_node = 8\n[facility]\npue = 1.1\n" + kJobs;

// The message of the error parsing `text` with `overrides` raises, or "(no error)".
std::string error_with(const std::vector<std::string>& overrides, const std::string& text = kBase) {
  try {
    (void)parse_scenario(text, "s.toml", overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("overrides of every value kind replace the file's values or add missing ones", "[override]") {
  const auto s = parse_scenario(kBase, "s.toml",
                                {"fleet.nodes=2000", "scheduler.policy=easy", "facility.pue = 1.25",
                                 "output.gpu_changes=false", "fleet.gpu=\"h100\"", "seed=17"});
  CHECK(s.fleet.nodes == 2000);         // an integer replacing the file's 10
  CHECK(s.fleet.gpus_per_node == 8);    // the rest of [fleet] is kept
  CHECK(s.scheduler.policy == "easy");  // a bare word is a string; [scheduler] did not exist
  CHECK(s.facility.pue == 1.25);        // blanks around '=' are dropped
  CHECK_FALSE(s.output.gpu_changes);    // a boolean in a table the file does not have
  CHECK(s.fleet.gpu == "h100");         // a quoted TOML string
  CHECK(s.seed == 17);                  // a top-level key
  // The text kept for the result file is the file's, followed by the overrides as a comment.
  CHECK(s.text.rfind(kBase, 0) == 0);
  CHECK(s.text.find("#   fleet.nodes=2000\n") != std::string::npos);
  CHECK(s.text.find("#   seed=17\n") != std::string::npos);
}

TEST_CASE("overrides apply in order, and without overrides the text is the file's", "[override]") {
  CHECK(parse_scenario(kBase, "s.toml", {"fleet.nodes=5", "fleet.nodes=7"}).fleet.nodes == 7);
  CHECK(parse_scenario(kBase, "s.toml", {}).text == kBase);
}

TEST_CASE("array entries are addressed from 0 and arrays are replaced whole", "[override]") {
  const std::string two_jobs =
      "[fleet]\nnodes = 4\ngpus_per_node = 8\n[workload]\n[[workload.jobs]]\nn_gpus = 1\nclass = \"vit\"\n"
      "[[workload.jobs]]\nn_gpus = 2\nclass = \"vit\"\n";
  const auto s =
      parse_scenario(two_jobs, "s.toml", {"workload.jobs[1].n_gpus=4", "workload.jobs[0].epochs=3"});
  REQUIRE(s.workload.jobs.size() == 2);
  CHECK(s.workload.jobs[0].n_gpus == 1);
  CHECK(s.workload.jobs[0].epochs == 3);
  CHECK(s.workload.jobs[1].n_gpus == 4);
  // A whole array of tables as inline tables: one job of 8 GPUs instead of the file's two.
  const auto one = parse_scenario(two_jobs, "s.toml", {"workload.jobs=[{n_gpus = 8, class = \"vit\"}]"});
  REQUIRE(one.workload.jobs.size() == 1);
  CHECK(one.workload.jobs[0].n_gpus == 8);
  // An element of an array of numbers.
  toml::table root = toml::parse("x = [1, 2, 3]\n");
  apply_override(root, "x[2]=30");
  CHECK(root["x"][2].value<std::int64_t>() == 30);
  CHECK(root["x"][0].value<std::int64_t>() == 1);
}

TEST_CASE("a bad overridden value is reported at the assignment with its key", "[override]") {
  CHECK(error_with({"fleet.nodes=0"}) == "--set fleet.nodes=0: fleet.nodes: must be positive, got 0");
  CHECK(error_with({"fleet.nodes=abc"}) ==
        "--set fleet.nodes=abc: fleet.nodes: expected an integer, found a string");
  CHECK(
      error_with({"fleet.nodez=3"}).rfind("--set fleet.nodez=3: fleet.nodez: unknown key (known here: ", 0) ==
      0);
  CHECK(error_with({"fleat.nodes=3"}).rfind("--set fleat.nodes=3: fleat: unknown key", 0) == 0);
  // The file's own errors keep their line and column when overrides are given.
  CHECK(error_with({"fleet.nodes=3"}, kBase + "[output]\nfacility_interval_s = -1\n")
            .rfind("s.toml:12:1: output.facility_interval_s:", 0) == 0);
}

TEST_CASE("a malformed assignment is refused naming --set and the key", "[override]") {
  CHECK(error_with({"fleet.nodes"}) ==
        "--set: fleet.nodes: expected key=value (for example fleet.nodes=2000)");
  CHECK(error_with({"=3"}) == "--set =3: no key before '='");
  CHECK(
      error_with({"fleet..nodes=3"}) ==
      "--set fleet..nodes=3: fleet..nodes: a key segment is empty or has a character other than A-Z a-z 0-9 "
      "_ -");
  CHECK(error_with({"fleet.nodes=[1, 2"})
            .rfind("--set fleet.nodes=[1, 2: fleet.nodes: the value is not a TOML value (", 0) == 0);
  CHECK(error_with({"fleet.nodes.x=3"}) ==
        "--set fleet.nodes.x=3: fleet.nodes.x: fleet.nodes is an integer, not a table: no key can be set "
        "inside "
        "it");
  CHECK(error_with({"workload.jobs[1].n_gpus=2"}) ==
        "--set workload.jobs[1].n_gpus=2: workload.jobs[1].n_gpus: workload.jobs has 1 entries (indices from "
        "0); [1] is past its end");
  CHECK(error_with({"fleet[0].nodes=2"}) ==
        "--set fleet[0].nodes=2: fleet[0].nodes: fleet is a table, not an array: it has no [0]");
  CHECK(error_with({"workload.jobs[x]=2"}) ==
        "--set workload.jobs[x]=2: workload.jobs[x]: an index must be [N], N a whole number from 0");
}

TEST_CASE("a value that is not UTF-8 text is refused naming the assignment", "[override][bad-input]") {
  // Found by fuzzing (fuzz/scenario_override): toml++'s parse error escaped apply_override (exit 3,
  // "internal error") for a value holding bytes that are not UTF-8.
  const std::string msg =
      error_with({"scheduler.policy=e\xff"
                  "asy"});
  CHECK(msg.rfind("--set scheduler.policy=e\xff"
                  "asy: scheduler.policy: the value is not text (",
                  0) == 0);
}
