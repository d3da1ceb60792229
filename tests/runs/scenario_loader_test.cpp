// Scenario parsing: a full scenario reads into the right structs; every kind of bad input is refused with
// one message naming the file, line:column and key.
#include <catch2/catch.hpp>

#include <optional>

#include "fleetwatt/runs/region.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "scenario_test_support.hpp"
#include "test_support.hpp"

using namespace fleetwatt::jobs;
using namespace fleetwatt::runs;
using fleetwatt::test::error_of;
using fleetwatt::test::kJobs;

TEST_CASE("a complete scenario reads into typed sections", "[scenario]") {
  auto s = parse_scenario(R"(
seed = 42
[fleet]
nodes = 10
gpus_per_node = 8
gpu = "a800"
gpu_idle_w = 55
node_base_w = 700
[facility]
pue = 1.2
carbon_kg_per_kwh = 0.36
[predictor.classes.tiny]
peak_w = 200
peak_s = 10
valley_w = 60
valley_s = 1
dataset_samples = 1000
[workload]
horizon_s = 3600
[[workload.jobs]]
submit_s = 5
n_gpus = 8
epochs = 3
class = "tiny"
dataset_samples = 2000
precision = "bf16"
[[workload.jobs]]
n_gpus = 2
peak_w = 250
peak_s = 20
valley_w = 70
valley_s = 2
[output]
path = "out.h5"
facility_interval_s = 0.5
node_interval_s = 60
)",
                          "dir/s.toml");
  CHECK(s.seed == 42);
  CHECK(s.fleet.nodes == 10);
  CHECK(s.fleet.gpus_per_node == 8);
  CHECK(*s.fleet.gpu_idle_W == 55);
  CHECK(s.fleet.node_base_W == 700);
  CHECK(s.facility.pue == 1.2);
  CHECK(s.facility.carbon_kg_per_J == Approx(0.36 / 3.6e6));
  REQUIRE(s.predictor.classes.size() == 1);
  CHECK(s.predictor.classes[0].reference.peak_W == 200);
  CHECK(s.predictor.classes[0].reference_samples == 1000);
  CHECK(s.workload.horizon_s == 3600);
  REQUIRE(s.workload.jobs.size() == 2);
  CHECK(s.workload.jobs[0].id == 1);
  CHECK(s.workload.jobs[0].job_class == "tiny");
  CHECK(s.workload.jobs[0].meta.dataset_samples == 2000);
  CHECK(s.workload.jobs[0].meta.precision == Precision::bf16);
  CHECK(s.workload.jobs[1].id == 2);
  CHECK(s.workload.jobs[1].phases == PhaseProfile{250, 20, 70, 2});
  // docs/scenario.md: "Relative paths resolve against the scenario file's folder" ([output] path included).
  CHECK(s.output.path == std::filesystem::path("dir") / "out.h5");
  CHECK(s.output.facility_interval_s == 0.5);
}

TEST_CASE("the [output] path resolves against the scenario's folder, an absolute one stays", "[scenario]") {
  // docs/scenario.md: "Relative paths resolve against the scenario file's folder" (-o on the command line
  // does not).
  auto s = parse_scenario(kJobs + "[output]\npath = \"r.h5\"\n", "a/b/s.toml");
  CHECK(s.output.path == std::filesystem::path("a/b") / "r.h5");
  CHECK(s.output.path_where.to_string() == "a/b/s.toml:6:1");  // where an unwritable path is reported
  s = parse_scenario(kJobs + "[output]\npath = \"/abs/r.h5\"\n", "a/b/s.toml");
  CHECK(s.output.path == "/abs/r.h5");
  // The default is a relative path like any other.
  s = parse_scenario(kJobs, "a/b/s.toml");
  CHECK(s.output.path == std::filesystem::path("a/b") / "fleetwatt.h5");
  CHECK(s.output.path_where.to_string() == "a/b/s.toml");
}

TEST_CASE("an unknown key is an error at its line and column", "[scenario][bad-input]") {
  CHECK(error_of("[fleet]\nnodes = 2\nnodez = 3\n" + kJobs)
            .rfind("bad.toml:3:1: fleet.nodez: unknown key", 0) == 0);
  CHECK(error_of("colour = 1\n" + kJobs).rfind("bad.toml:1:1: colour: unknown key", 0) == 0);
  CHECK(error_of(kJobs + "flavour = 2\n").rfind("bad.toml:5:1: workload.jobs[0].flavour: unknown key", 0) ==
        0);
}

TEST_CASE("a job's stack reaches its metadata, eager when absent", "[scenario][stack]") {
  const auto s = parse_scenario(R"([workload]
[[workload.jobs]]
n_gpus = 1
model = "resnet50"
batch_size = 64
dataset_samples = 1000
stack = "compiled"
[[workload.jobs]]
n_gpus = 1
class = "vit"
stack = "optimized"
[[workload.jobs]]
n_gpus = 1
class = "bert"
)",
                                "s.toml");
  REQUIRE(s.workload.jobs.size() == 3);
  CHECK(s.workload.jobs[0].meta.stack == SoftwareStack::compiled);
  CHECK(s.workload.jobs[1].meta.stack == SoftwareStack::optimized);
  CHECK(s.workload.jobs[2].meta.stack == SoftwareStack::eager);
}

TEST_CASE("an unknown stack is an error at its line, naming the known ones", "[scenario][stack][bad-input]") {
  // kJobs is four lines; the stack is the fifth.
  CHECK(
      error_of(kJobs + "stack = \"turbo\"\n") ==
      "bad.toml:5:1: workload.jobs[0].stack: unknown stack 'turbo' (known: eager, amp, compiled, optimized)");
  CHECK(error_of(kJobs + "stack = 3\n") ==
        "bad.toml:5:1: workload.jobs[0].stack: expected a string, found an integer");
}

TEST_CASE("a value of the wrong type is an error naming the key", "[scenario][bad-input]") {
  CHECK(error_of("[fleet]\nnodes = \"ten\"\n" + kJobs) ==
        "bad.toml:2:1: fleet.nodes: expected an integer, found a string");
  CHECK(error_of("[fleet]\nnodes = 2.5\n" + kJobs) ==
        "bad.toml:2:1: fleet.nodes: expected an integer, found a number");
  CHECK(error_of("[facility]\npue = true\n" + kJobs) ==
        "bad.toml:2:1: facility.pue: expected a number, found a boolean");
  CHECK(error_of("fleet = 3\n" + kJobs) == "bad.toml:1:1: fleet: expected a table, found an integer");
}

TEST_CASE("negative or zero counts are refused", "[scenario][bad-input]") {
  CHECK(error_of("[fleet]\nnodes = 0\n" + kJobs) == "bad.toml:2:1: fleet.nodes: must be positive, got 0");
  CHECK(error_of("[fleet]\ngpus_per_node = -4\n" + kJobs) ==
        "bad.toml:2:1: fleet.gpus_per_node: must be positive, got -4");
  CHECK(error_of("[workload]\n[[workload.jobs]]\nn_gpus = 0\n") ==
        "bad.toml:3:1: workload.jobs[0].n_gpus: must be positive, got 0");
  CHECK(error_of("[workload]\n[[workload.jobs]]\nn_gpus = 1\nepochs = -1\nclass = \"vit\"\n") ==
        "bad.toml:4:1: workload.jobs[0].epochs: must be positive, got -1");
  CHECK(error_of("[facility]\npue = 0.9\n" + kJobs) ==
        "bad.toml:2:1: facility.pue: must be between 1 and 5, got 0.9");
  CHECK(error_of("[workload]\nhorizon_s = -5\n[[workload.jobs]]\nn_gpus = 1\n") ==
        "bad.toml:2:1: workload.horizon_s: must be positive, got -5");
}

TEST_CASE("a generator's GPU counts beyond 32 bits are refused at their line", "[scenario][bad-input]") {
  // Found by the region_toml fuzz target under UBSan: 4.4e11 was converted to 32 bits before it was checked.
  const std::string head =
      "[workload]\n[workload.generator]\nrate_per_hour = 1\n[[workload.generator.mix]]\n"
      "class = \"vit\"\n";
  CHECK(error_of(head + "n_gpus = [1, 4.4e11]\n") ==
        "bad.toml:6:1: workload.generator.mix[0].n_gpus: must hold positive integers, found 440000000000");
  CHECK(error_of(head + "n_gpus = [2.5]\n") ==
        "bad.toml:6:1: workload.generator.mix[0].n_gpus: must hold positive integers, found 2.5");
}

TEST_CASE("a carbon factor beyond any grid's is refused at its line (it made carbon sums inf)",
          "[scenario][bad-input]") {
  // carbon_kg_per_kwh = 1e308 once passed and the run wrote inf carbon with exit status 0.
  CHECK(error_of("[facility]\ncarbon_kg_per_kwh = 1e308\n" + kJobs) ==
        "bad.toml:2:1: facility.carbon_kg_per_kwh: must be between 0 and 10, got 1e+308");
  CHECK(error_of("[facility]\ncarbon_kg_per_kwh = 10\n" + kJobs) == "(no error)");
}

TEST_CASE("a missing jobs file is an error naming the key and the path", "[scenario][bad-input]") {
  auto msg = error_of("[workload]\njobs_csv = \"nowhere.csv\"\n");
  CHECK(msg.rfind("bad.toml:2:1: workload.jobs_csv: file not found: ", 0) == 0);
  CHECK(msg.find("nowhere.csv") != std::string::npos);
}

TEST_CASE("an input path that cannot be looked up is an error at its key, not an escaped exception",
          "[scenario][bad-input]") {
  // A name longer than the system allows (ENAMETOOLONG) makes std::filesystem::exists throw, as does a folder
  // the user may not enter (EACCES, not testable as root): each file key said neither and the exception
  // escaped the loader (found by the region fuzz target).
  const std::string too_long = "/" + std::string(300, 'a');
  const auto expected = [&](const std::string& where) {
    return "bad.toml:" + where + ": cannot reach " + too_long + ": File name too long";
  };
  CHECK(error_of("[workload]\njobs_csv = \"" + too_long + "\"\n") == expected("2:1: workload.jobs_csv"));
  CHECK(error_of("[fleet]\ngpu_file = \"" + too_long + "\"\n" + kJobs) == expected("2:1: fleet.gpu_file"));
  CHECK(error_of("[workload.trace]\nfile = \"" + too_long + "\"\n") == expected("2:1: workload.trace.file"));
  CHECK(error_of(kJobs + "[grid.carbon]\nfile = \"" + too_long + "\"\n") ==
        expected("6:1: grid.carbon.file"));
  try {
    (void)parse_region("[[site]]\nname = \"a\"\nscenario = \"" + too_long + "\"\n", "bad.toml", {},
                       std::nullopt);
    FAIL("expected an error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == expected("3:1: site[0].scenario"));
  }
}

TEST_CASE("a missing scenario file is an error naming it", "[scenario][bad-input]") {
  try {
    (void)load_scenario("/no/such/scenario.toml");
    FAIL("expected an error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "/no/such/scenario.toml: cannot open scenario file");
  }
}

TEST_CASE("TOML syntax errors carry toml++'s line and column", "[scenario][bad-input]") {
  auto msg = error_of("[fleet]\nnodes = = 3\n");
  CHECK(msg.rfind("bad.toml:2:", 0) == 0);
}

TEST_CASE("a job bigger than the fleet and half-given phases are refused", "[scenario][bad-input]") {
  CHECK(error_of("[fleet]\nnodes = 2\ngpus_per_node = 4\n[workload]\n[[workload.jobs]]\nn_gpus = 9\n") ==
        "bad.toml:5:1: n_gpus: job 1 asks for 9 GPUs but the fleet has 8");
  CHECK(error_of("[workload]\n[[workload.jobs]]\nn_gpus = 1\npeak_w = 3\n")
            .find("peak_s: missing (a phase profile needs peak_w, peak_s, valley_w and valley_s)") !=
        std::string::npos);
  CHECK(
      error_of(
          "[workload]\n[[workload.jobs]]\nn_gpus = 1\nclass = \"vit\"\npeak_w = 1\npeak_s = 1\nvalley_w = 1\n"
          "valley_s = 1\n")
          .find("not both") != std::string::npos);
  CHECK(error_of("[workload]\nhorizon_s = 10\n") ==
        "bad.toml: workload: no jobs: give [[workload.jobs]], jobs_csv, [workload.generator], "
        "[workload.trace], [workload.preset] or [[workload.service]]");
}

TEST_CASE("jobs_csv resolves against the scenario's folder", "[scenario]") {
  fleetwatt::test::TempDir dir;
  dir.write("jobs.csv",
            "job_id,submit_s,n_gpus,epochs,peak_s,peak_W,valley_s,valley_W\n7,1.5,2,3,10,250,1,60\n");
  auto path = dir.write("s.toml", "[workload]\njobs_csv = \"jobs.csv\"\n");
  auto s = load_scenario(path);
  REQUIRE(s.workload.jobs.size() == 1);
  CHECK(s.workload.jobs[0].id == 7);
  CHECK(s.workload.jobs[0].phases == PhaseProfile{250, 10, 60, 1});
}

TEST_CASE("[output] start: the instant and the offset it was written in", "[scenario][grid]") {
  // Default: 2026-01-01T00:00:00Z = 20454 days after 1970-01-01 = 1767225600 s.
  auto s = parse_scenario(kJobs, "s.toml");
  CHECK(s.output.start == "2026-01-01T00:00:00Z");
  CHECK(s.output.start_unix_s == 1767225600);
  CHECK(s.output.start_utc_offset_s == 0);
  // 2026-07-01 is 181 days later; 02:00 at +02:00 is 00:00 UTC.
  s = parse_scenario(kJobs + "[output]\nstart = \"2026-07-01T02:00:00+02:00\"\n", "s.toml");
  CHECK(s.output.start_unix_s == 1767225600 + 181 * 86400);
  CHECK(s.output.start_utc_offset_s == 7200);
  s = parse_scenario(kJobs + "[output]\nstart = \"2026-01-01T00:00:00-05:30\"\n", "s.toml");
  CHECK(s.output.start_unix_s == 1767225600 + 5 * 3600 + 1800);
  CHECK(s.output.start_utc_offset_s == -(5 * 3600 + 1800));
  s = parse_scenario(kJobs + "[output]\nstart = \"2026-03-01 06:00\"\n", "s.toml");  // no zone: UTC
  CHECK(s.output.start_unix_s == 1767225600 + 59 * 86400 + 6 * 3600);
  CHECK(s.output.start_utc_offset_s == 0);
  CHECK(error_of(kJobs + "[output]\nstart = \"tomorrow\"\n")
            .rfind("bad.toml:6:1: output.start: 'tomorrow' is "
                   "not an ISO 8601 time",
                   0) == 0);
  CHECK(error_of(kJobs + "[output]\nstart = \"2026-01-01T00:00:00.5Z\"\n") ==
        "bad.toml:6:1: output.start: must be a whole second");
}

TEST_CASE("[grid] system_peak_hours: distinct hours of the day", "[scenario][grid]") {
  auto s = parse_scenario(kJobs + "[grid]\nsystem_peak_hours = [17, 18, 19]\n", "s.toml");
  CHECK(s.grid.system_peak_hours == std::vector<int>{17, 18, 19});
  CHECK(parse_scenario(kJobs, "s.toml").grid.system_peak_hours.empty());
  CHECK(error_of(kJobs + "[grid]\nsystem_peak_hours = [17, 24]\n") ==
        "bad.toml:6:1: grid.system_peak_hours: 24 is not an hour of the day (integers 0 to 23)");
  CHECK(error_of(kJobs + "[grid]\nsystem_peak_hours = [7.5]\n") ==
        "bad.toml:6:1: grid.system_peak_hours: 7.5 is not an hour of the day (integers 0 to 23)");
  CHECK(error_of(kJobs + "[grid]\nsystem_peak_hours = [8, 8]\n") ==
        "bad.toml:6:1: grid.system_peak_hours: hour 8 is listed twice");
}
