// [[fleet.group]] tables: node groups read into the scenario with their defaults, every misuse is refused
// with a located message, and the heterogeneous-fleet example of docs/scenario.md parses.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/runs/scenario_predictor.hpp"
#include "scenario_test_support.hpp"
#include "test_support.hpp"

using namespace fleetwatt::jobs;
using namespace fleetwatt::runs;
using fleetwatt::test::error_of;
using fleetwatt::test::kJobs;

namespace {
const std::string kGroups = R"([fleet]
node_base_w = 300
[[fleet.group]]
name = "big"
nodes = 2
gpus_per_node = 4
gpu = "a800"
gpu_idle_w = 55
[[fleet.group]]
nodes = 1
gpus_per_node = 2
gpu = "t4"
node_base_w = 90
)";
}  // namespace

TEST_CASE("node groups read in order with their defaults", "[scenario][fleet]") {
  const auto s = parse_scenario(kGroups + kJobs, "s.toml");
  REQUIRE(s.fleet.groups.size() == 2);
  CHECK(s.fleet.groups[0].name == "big");
  CHECK(s.fleet.groups[0].gpu_idle_W == 55.0);
  CHECK_FALSE(s.fleet.groups[0].node_base_W);  // the [fleet] default applies (engine_setup)
  CHECK(s.fleet.groups[1].name == "group1");   // unnamed: its position
  CHECK(s.fleet.groups[1].gpu == "t4");
  CHECK(s.fleet.groups[1].node_base_W == 90.0);
  CHECK(s.fleet.node_base_W == 300.0);
  // Totals: 2 + 1 nodes; 2 x 4 + 1 x 2 = 10 GPUs; a job gets at most the largest group's 8.
  CHECK(s.fleet.nodes == 3);
  CHECK(s.fleet.gpus_per_node == 4);
  CHECK(s.fleet.gpu == "a800");
  CHECK(s.fleet.total_gpus() == 10);
  CHECK(s.fleet.largest_group_gpus() == 8);
}

TEST_CASE("node groups refuse top-level fleet sizes, bad fields and a topology", "[scenario][fleet]") {
  CHECK(error_of("[fleet]\nnodes = 2\n[[fleet.group]]\nnodes = 1\ngpus_per_node = 1\ngpu = \"t4\"\n" + kJobs)
            .rfind("bad.toml:2:1: fleet.nodes: cannot be given with [[fleet.group]]", 0) == 0);
  CHECK(error_of("[fleet]\ngpu_idle_w = 2\n[[fleet.group]]\nnodes = 1\ngpus_per_node = 1\ngpu = \"t4\"\n" +
                 kJobs)
            .rfind("bad.toml:2:1: fleet.gpu_idle_w: cannot be given", 0) == 0);
  CHECK(
      error_of(kGroups + "gpus = 3\n" + kJobs).rfind("bad.toml:14:1: fleet.group[1].gpus: unknown key", 0) ==
      0);
  CHECK(error_of("[[fleet.group]]\nnodes = 0\ngpus_per_node = 1\ngpu = \"t4\"\n" + kJobs)
            .rfind("bad.toml:2:1: fleet.group[0].nodes:", 0) == 0);
  CHECK(error_of("[[fleet.group]]\nnodes = 1\ngpus_per_node = 1\n" + kJobs)
            .find("fleet.group[0].gpu: missing") != std::string::npos);
  CHECK(
      error_of(kGroups + "[topology]\nkind = \"fat_tree\"\n" + kJobs).rfind("bad.toml:14:1: topology:", 0) ==
      0);
  // A job larger than every group: 9 GPUs where the largest group has 8.
  CHECK(error_of(kGroups + "[workload]\n[[workload.jobs]]\nn_gpus = 9\nclass = \"vit\"\n")
            .find("asks for 9 GPUs but the largest node group has 8") != std::string::npos);
}

TEST_CASE("docs/scenario.md's heterogeneous fleet example parses", "[scenario][fleet][docs]") {
  std::ifstream in(fleetwatt::test::source_dir() / "docs" / "scenario.md");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string page = ss.str();
  const auto intro = page.find("A heterogeneous fleet is a list of node groups");
  REQUIRE(intro != std::string::npos);
  const auto start = page.find("```toml\n", intro);
  const auto end = page.find("```\n", start + 8);
  fleetwatt::test::TempDir dir;
  dir.write("my-gpus.toml", "");
  dir.write("my-site.toml", "name = \"lab\"\n");
  dir.write("big-site.toml", "name = \"big\"\n");
  const auto s = load_scenario(dir.write("fleet.toml", page.substr(start + 8, end - start - 8) + kJobs));
  REQUIRE(s.fleet.groups.size() == 2);
  CHECK(s.fleet.total_gpus() == 4 * 8 + 10 * 2);
  // The A800s' site is their group's, the T4s' the fleet's.
  CHECK(scenario_site(s, "a800").filename() == "big-site.toml");
  CHECK(scenario_site(s, "t4").filename() == "my-site.toml");
}

TEST_CASE("fleet_scale scales every node group", "[scenario][fleet]") {
  fleetwatt::test::TempDir dir;
  dir.write("t.swf", "");  // only its existence is checked when the scenario loads
  const auto s = load_scenario(dir.write(
      "s.toml",
      kGroups + "[workload]\n[workload.trace]\nfile = \"t.swf\"\nformat = \"swf\"\nfleet_scale = 2.5\n"));
  // round(2 x 2.5) = 5 and round(1 x 2.5) = 3 (half away from zero) nodes: 8 in all.
  REQUIRE(s.fleet.groups.size() == 2);
  CHECK(s.fleet.groups[0].nodes == 5);
  CHECK(s.fleet.groups[1].nodes == 3);
  CHECK(s.fleet.nodes == 8);
  CHECK(s.fleet.total_gpus() == 5 * 4 + 3 * 2);
}

TEST_CASE("a fleet_scale that scales the fleet beyond 10^7 nodes is refused at the trace table",
          "[scenario][fleet][edges]") {
  // fleet_scale = 1e300 reached a cast of the scaled node count to 32 bits (undefined behaviour).
  fleetwatt::test::TempDir dir;
  dir.write("t.swf", "");
  const std::string head =
      "[fleet]\nnodes = 4\ngpus_per_node = 1\n[workload]\n[workload.trace]\nfile = \"t.swf\"\n";
  for (const auto& [scale, shown] :
       {std::pair{"1e300", "1e+300 scales 4 nodes to 4e+300"},
        std::pair{"9223372036854775808.0", "9.223372036854776e+18 scales 4 nodes to 3.69e+19"},
        std::pair{"2500001.0", "2500001 scales 4 nodes to 1e+07"}}) {
    INFO(scale);
    CHECK_THROWS_WITH(load_scenario(dir.write("s.toml", head + "fleet_scale = " + scale + "\n")),
                      (dir / "s.toml").string() + ":5:1: workload.trace.fleet_scale: " + shown +
                          ", beyond the 10000000 a fleet may hold");
  }
  CHECK(load_scenario(dir.write("s.toml", head + "fleet_scale = 2500000.0\n")).fleet.nodes == 10'000'000);
  // NaN and inf are refused where the key is read, as any parameter that is not a finite number.
  CHECK_THROWS_WITH(load_scenario(dir.write("s.toml", head + "fleet_scale = nan\n")),
                    Catch::Contains("s.toml:7:") && Catch::Contains("fleet_scale: must be a finite number"));
}
