// `--set key=value` on the command line: a run with overrides is the run of the file with those values
// written in, and a bad override is refused like a bad key in the file (exit 2, one line naming --set and
// the key, no result file).
#include <algorithm>
#include <catch2/catch.hpp>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "result_files_equal.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {

// A small hour of generated jobs; `nodes`, `seed` and the policy are what the tests override.
std::string small(int nodes, int seed, const std::string& policy) {
  return "seed = " + std::to_string(seed) + "\n[fleet]\nnodes = " + std::to_string(nodes) +
         "\ngpus_per_node = 4\n[scheduler]\npolicy = \"" + policy +
         "\"\n[workload]\nhorizon_s = 3600\n[workload.generator]\nrate_per_hour = 40\n"
         "[[workload.generator.mix]]\nclass = \"vit\"\nn_gpus = [1, 4, 8]\nepochs = [1, 5]\n"
         "dataset_samples = [10000, 30000]\n";
}

}  // namespace

TEST_CASE("a run with --set equals the run of the file with the values written in", "[cli][set]") {
  TempDir dir;
  const auto base = dir.write("base.toml", small(4, 11, "fifo"));
  const auto edited = dir.write("edited.toml", small(6, 5, "sjf"));
  auto a = run_command(fleetwatt_command() + " run -q " + base.string() + " -o " + (dir / "a.h5").string() +
                       " --set fleet.nodes=6 --set seed=5 --set scheduler.policy=sjf");
  REQUIRE(a.exit_code == 0);
  auto b = run_command(fleetwatt_command() + " run -q " + edited.string() + " -o " + (dir / "b.h5").string());
  REQUIRE(b.exit_code == 0);
  CHECK(result_files_difference(dir / "a.h5", dir / "b.h5").empty());
  // 6 servers of 4 GPUs: the overridden fleet, not the file's 4 servers.
  fleetwatt::results::ResultReader h5(dir / "a.h5");
  CHECK(h5.integer_attribute("/gpus", "count") == 24);
  // The result file's scenario text records the overrides after the file's text.
  CHECK(h5.string_attribute("/", "scenario").find("#   fleet.nodes=6\n") != std::string::npos);
}

TEST_CASE("a bad --set exits 2 with one line naming --set and the key, and writes nothing", "[cli][set]") {
  TempDir dir;
  const auto s = dir.write("s.toml", small(4, 11, "fifo"));
  const auto out = dir / "out.h5";
  const std::pair<std::string, std::string> cases[] = {
      {"fleet.nodez=3", "fleetwatt: error: --set fleet.nodez=3: fleet.nodez: unknown key (known here: "},
      {"fleet.nodes=0", "fleetwatt: error: --set fleet.nodes=0: fleet.nodes: must be positive, got 0"},
      {"scheduler.policy=bogus",
       "fleetwatt: error: --set scheduler.policy=bogus: scheduler.policy: unknown policy"},
      {"fleet.nodes", "fleetwatt: error: --set: fleet.nodes: expected key=value"},
  };
  for (const auto& [assignment, message] : cases) {
    for (const char* cmd : {" run ", " compare -o "}) {
      INFO(cmd << assignment);
      const std::string target = std::string(cmd) == " run " ? " -o " + out.string() : "";
      auto r =
          run_command(fleetwatt_command() + cmd +
                      (std::string(cmd) == " run " ? s.string() + target : out.string() + " " + s.string()) +
                      " --set '" + assignment + "'");
      CHECK(r.exit_code == 2);
      CHECK(r.err.rfind(message, 0) == 0);
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      CHECK_FALSE(std::filesystem::exists(out));
    }
  }
}
