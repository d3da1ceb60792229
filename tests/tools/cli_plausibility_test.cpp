// Plausibility of scenario numbers (issue 16): finite but absurd values (pue = 1e308, a 1e308 W GPU), idle
// above TDP, a valley above the peak and a peak below idle are refused with one located line and exit 2,
// before anything runs; a PUE above 3 runs with a warning.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {
std::string fw() {
  return fleetwatt_binary().string();
}

// A one-job scenario; `fleet` and `job` lines are spliced in (job keys go under [[workload.jobs]]).
std::string scenario(const std::string& facility, const std::string& fleet, const std::string& job) {
  return "[facility]\n" + facility + "[fleet]\nnodes = 1\ngpus_per_node = 2\n" + fleet +
         "[workload]\nhorizon_s = 600\n[[workload.jobs]]\nn_gpus = 1\nepochs = 1\n" + job;
}
const std::string kJob = "peak_w = 300\npeak_s = 100\nvalley_w = 100\nvalley_s = 10\n";
}  // namespace

TEST_CASE("absurd or contradictory powers are refused with their place, exit 2, no file",
          "[cli][bad-input]") {
  struct Case {
    std::string name, toml, expected;
  };
  const std::vector<Case> cases = {
      // Line numbers: [facility] is line 1, its key line 2; [fleet] follows with nodes and gpus_per_node.
      {"pue 1e308", scenario("pue = 1e308\n", "", kJob), "s.toml:2:1: facility.pue: must be between 1 and 5"},
      {"pue below 1", scenario("pue = 0.9\n", "", kJob), "s.toml:2:1: facility.pue: must be between 1 and 5"},
      {"GPU of 1e308 W", scenario("", "gpu_tdp_w = 1e308\n", kJob),
       "s.toml:5:1: fleet.gpu_tdp_w: must be between 0 and 10000"},
      {"idle above TDP, both written", scenario("", "gpu_idle_w = 500\ngpu_tdp_w = 400\n", kJob),
       "s.toml:5:1: fleet.gpu_idle_w: idle power 500 W is above gpu_tdp_w = 400 W"},
      // The default GPU (a800) has a 400 W TDP: an idle override above it is refused at the fleet's table.
      {"idle above the preset's TDP", scenario("", "gpu_idle_w = 450\n", kJob),
       "fleet.gpu_idle_w: a800 idles at 450 W, above its TDP of 400 W"},
      {"valley above peak", scenario("", "", "peak_w = 200\npeak_s = 100\nvalley_w = 250\nvalley_s = 10\n"),
       "s.toml:7:1: valley_w: job 1: valley 250 W is above its peak 200 W"},
      {"peak below idle",
       scenario("", "gpu_idle_w = 60\n", "peak_w = 50\npeak_s = 100\nvalley_w = 40\nvalley_s = 10\n"),
       "s.toml:8:1: peak_w: job 1: peak 50 W is below the a800 GPU's idle power of 60 W"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    TempDir dir;
    dir.write("s.toml", c.toml);
    const auto out = dir / "out.h5";
    const auto r =
        run_command("cd " + dir.path().string() + " && " + fw() + " run s.toml -o " + out.string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.expected) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(out));
  }
}

TEST_CASE("a PUE above 3 runs, with one warning naming its place", "[cli]") {
  TempDir dir;
  dir.write("s.toml", scenario("pue = 4\n", "", kJob));
  const auto out = dir / "out.h5";
  const auto r =
      run_command("cd " + dir.path().string() + " && " + fw() + " run -q s.toml -o " + out.string());
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("s.toml:2:1: facility.pue = 4 is above 3") != std::string::npos);
  CHECK(std::filesystem::exists(out));
}
