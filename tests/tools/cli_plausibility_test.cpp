// Plausibility of scenario numbers: finite but absurd values (pue = 1e308, a 1e308 W GPU), idle
// above TDP, a valley above the peak and a peak below idle are refused with one located line and exit 2,
// before anything runs; a PUE above 3 runs with a warning. Arrivals beyond the horizon, rates and warm-ups
// no memory holds and epochs beyond the clock are refused at their key; late jobs are counted in a warning.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {
// A one-job scenario; `fleet` and `job` lines are spliced in (job keys go under [[workload.jobs]]).
std::string scenario(const std::string& facility, const std::string& fleet, const std::string& job) {
  return "[facility]\n" + facility + "[fleet]\nnodes = 1\ngpus_per_node = 2\n" + fleet +
         "[workload]\nhorizon_s = 600\n[[workload.jobs]]\nn_gpus = 1\nepochs = 1\n" + job;
}
const std::string kJob = "peak_w = 300\npeak_s = 100\nvalley_w = 100\nvalley_s = 10\n";

struct Case {
  std::string name, toml, expected;
};

// Each scenario is refused by `fleetwatt run`: exit 2, the expected located line and nothing else, no file.
void check_refused(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    INFO(c.name);
    TempDir dir;
    dir.write("s.toml", c.toml);
    const auto out = dir / "out.h5";
    const auto r = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() +
                               " run s.toml -o " + out.string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.expected) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(out));
  }
}
}  // namespace

TEST_CASE("absurd or contradictory powers are refused with their place, exit 2, no file",
          "[cli][bad-input]") {
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
  check_refused(cases);
}

TEST_CASE("a PUE above 3 runs, with one warning naming its place", "[cli]") {
  TempDir dir;
  dir.write("s.toml", scenario("pue = 4\n", "", kJob));
  const auto out = dir / "out.h5";
  const auto r = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() +
                             " run -q s.toml -o " + out.string());
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("s.toml:2:1: facility.pue = 4 is above 3") != std::string::npos);
  CHECK(std::filesystem::exists(out));
}

namespace {
// A generated workload on a 16-GPU fleet, 1 h; `rate`, `generator` (extra [workload.generator] lines),
// `workload` (extra [workload] lines) and the mix's dataset_samples are spliced in.
std::string generated(const std::string& rate, const std::string& generator, const std::string& workload = "",
                      const std::string& samples = "[50000, 60000]", const std::string& epochs = "[3, 5]") {
  return "[fleet]\nnodes = 4\ngpus_per_node = 4\n[workload]\nhorizon_s = 3600\n" + workload +
         "[workload.generator]\nrate_per_hour = " + rate + "\n" + generator +
         "[[workload.generator.mix]]\nclass = \"vit\"\nn_gpus = [1, 2]\nepochs = " + epochs +
         "\ndataset_samples = " + samples + "\n";
}

/// This machine's memory in bytes, from /proc/meminfo's MemTotal (the figure sysconf gives the command).
double machine_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (in >> key >> kb)
    if (key == "MemTotal:") return kb * 1024.0;
  return 0;
}
}  // namespace

TEST_CASE(
    "arrivals beyond the horizon, a rate or warm-up no memory holds and epochs beyond the clock are "
    "refused with their place",
    "[cli][bad-input]") {
  // Lines: [fleet] 1-3, [workload] 4-5, extra [workload] lines from 6, then [workload.generator] and its
  // rate_per_hour, then extra generator lines.
  const std::vector<Case> cases = {
      // The 1.67 M jobs for a 20,000 s run: a generator's end_s far beyond the horizon.
      {"end_s beyond the horizon", generated("10", "end_s = 1e8\n"),
       "s.toml:8:1: workload.generator.end_s: 100000000 s is after the horizon (workload.horizon_s = 3600 "
       "s)"},
      // 1e300 jobs an hour for an hour: refused at its key before a single job is drawn (it exhausted
      // memory).
      {"rate 1e300", generated("1e300", ""),
       "s.toml:7:1: workload.generator.rate_per_hour: 1e+300 arrivals expected over [0, 3600) s, more than "
       "the 1e+08"},
      // 9e7 an hour: 9e7 in the window (under 1e8) but 1.8e8 with its 1 h warm-up.
      {"warm-up arrivals", generated("9e7", "", "warmup_s = 3600\n"),
       "s.toml:6:1: workload.warmup_s: 1.8e+08 jobs expected over the warm-up and the window"},
      // 4e9 epochs of ~113 s: the default warm-up (2 x the longest job) is 9.07e11 s (it was exit 1, "outside
      // the simulated clock's range", without a place).
      {"epochs beyond the clock", generated("10", "", "", "[50000, 60000]", "[3, 4000000000]"),
       "s.toml:4:1: workload.warmup_s: the default warm-up, "
       "2 x the longest job the generator can draw, would be 9.07e+11 s"},
      // Without a warm-up the job itself: 1e12 samples make one epoch of ~1.9e9 s.
      {"dataset beyond the clock", generated("10", "", "warmup_s = 0\n", "[1e12, 1e12]"),
       "s.toml:10:1: dataset_samples: job 1: one epoch would last 1.89e+09 s, beyond the 1e+09 s"},
  };
  check_refused(cases);
}

TEST_CASE("a run that holds its job list refuses a workload whose jobs cannot fit this machine's memory",
          "[cli][bad-input]") {
  // A generated workload is drawn as the run goes and its finished jobs dropped: its memory follows the
  // running jobs. A preset (like a trace) is built whole before the run, so its jobs must fit: a rate that
  // expects twice as many jobs over the hour (+ its 1 h warm-up) as this machine's memory holds at
  // sizeof(JobSpec) + sizeof(Job) each (at least 1,000 bytes a job; the command says how many) is refused
  // before a job is drawn. Where that is above the 1e8 cap the cap answers instead and this case has nothing
  // to show.
  const double memory = machine_memory_bytes();
  REQUIRE(memory > 0);
  const double jobs = 2.0 * memory / 1000.0;
  if (jobs > 1e8) {
    WARN("this machine's memory is above what 1e8 jobs need; the memory check cannot be shown here");
    return;
  }
  TempDir dir;
  dir.write("s.toml",
            fmt::format("[fleet]\nnodes = 4\ngpus_per_node = 4\n[workload]\nhorizon_s = 3600\n"
                        "warmup_s = 3600\n[workload.preset]\ncluster = \"pai\"\nrate_per_hour = {:.0f}\n",
                        jobs / 2.0));
  const auto out = dir / "out.h5";
  const auto r = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() + " run s.toml -o " +
                             out.string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("s.toml:6:1: workload: ") != std::string::npos);
  CHECK(r.err.find("jobs, held to the end of the run, need up to") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("jobs submitted after the horizon are counted in one warning and the run goes on", "[cli]") {
  TempDir dir;
  // Three jobs; two arrive at or after the 600 s horizon (at 600 and 900 s).
  std::string s = scenario("", "", kJob);
  for (const char* t : {"600", "900"})
    s += std::string("[[workload.jobs]]\nn_gpus = 1\nepochs = 1\nsubmit_s = ") + t + "\n" + kJob;
  dir.write("s.toml", s);
  const auto out = dir / "out.h5";
  const auto r = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() +
                             " run -q s.toml -o " + out.string());
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("warning: 2 of 3 jobs are submitted at or after the horizon (workload.horizon_s = 600 s; "
                   "the first at 600 s) and will not run") != std::string::npos);
  CHECK(std::filesystem::exists(out));
}
