// The fleetwatt command end to end: help, a good run, the shipped scenarios, determinism of the file,
// and every bad-input case (exit status 2, one located line, no result file).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {
const std::string kSmall = R"(seed = 11
[fleet]
nodes = 4
gpus_per_node = 4
[facility]
pue = 1.2
carbon_kg_per_kwh = 0.5
[workload]
horizon_s = 3600
[workload.generator]
rate_per_hour = 30
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 4, 8]
epochs = [1, 5]
dataset_samples = [10000, 30000]
)";
}  // namespace

TEST_CASE("every command explains itself with --help", "[cli]") {
  for (const char* cmd : {"", " run", " bench", " list"}) {
    auto r = run_command(fleetwatt_command() + cmd + " --help");
    INFO(cmd);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("Usage") != std::string::npos);
  }
  auto r = run_command(fleetwatt_command() + " run --help");
  for (const char* opt : {"--output", "--seed", "--quiet"}) CHECK(r.out.find(opt) != std::string::npos);
}

TEST_CASE("a run writes its result file and prints a summary", "[cli]") {
  TempDir dir;
  auto scenario = dir.write("s.toml", kSmall);
  auto r =
      run_command(fleetwatt_command() + " run " + scenario.string() + " -o " + (dir / "out.h5").string());
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());  // stderr is not a terminal here: no progress lines
  for (const char* label : {"jobs finished", "GPU-hours", "facility energy", "peak facility power", "CO2"})
    CHECK(r.out.find(label) != std::string::npos);
  REQUIRE(std::filesystem::exists(dir / "out.h5"));
  // Carbon per facility interval: the interval's facility energy (mean power x 1 s) at 0.5 kg/kWh.
  fleetwatt::results::ResultReader h5(dir / "out.h5");
  const auto power = h5.doubles("/facility/facility_power_W");
  const auto carbon = h5.doubles("/facility/carbon_kg");
  REQUIRE(carbon.size() == power.size());
  CHECK(h5.string_attribute("/facility/carbon_kg", "units") == "kg");
  double total = 0.0;
  for (std::size_t i = 0; i < carbon.size(); ++i) {
    CHECK(carbon[i] == Approx(power[i] * 1.0 * 0.5 / 3.6e6).epsilon(1e-9));
    total += carbon[i];
  }
  CHECK(total == Approx(h5.doubles("/summary/carbon_kg").at(0)).epsilon(1e-12));
  // No temporary file is left behind.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 2);
}

TEST_CASE("two runs of the same scenario and seed write identical datasets", "[cli][determinism]") {
  TempDir dir;
  auto scenario = dir.write("s.toml", kSmall);
  REQUIRE(run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + (dir / "a.h5").string())
              .exit_code == 0);
  REQUIRE(run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + (dir / "b.h5").string())
              .exit_code == 0);
  REQUIRE(run_command(fleetwatt_command() + " run -q " + scenario.string() + " --seed 12 -o " +
                      (dir / "c.h5").string())
              .exit_code == 0);
  fleetwatt::results::ResultReader a(dir / "a.h5"), b(dir / "b.h5"), c(dir / "c.h5");
  REQUIRE(a.datasets() == b.datasets());
  for (const auto& name : a.datasets()) {
    INFO(name);
    if (name == "/jobs/class" || name == "/jobs/nodes" || name == "/jobs/state" || name == "/jobs/trace_id" ||
        name == "/jobs/status" || name == "/jobs/inferred") {
      CHECK(a.strings(name) == b.strings(name));
    } else if (name.rfind("/nodes/power_W", 0) == 0) {
      CHECK(a.matrix(name).values == b.matrix(name).values);
    } else {
      auto va = a.doubles(name), vb = b.doubles(name);
      // NaN != NaN, so compare bit patterns.
      REQUIRE(va.size() == vb.size());
      // (An empty dataset has no data pointer to give memcmp.)
      CHECK((va.empty() || std::memcmp(va.data(), vb.data(), va.size() * sizeof(double)) == 0));
    }
  }
  CHECK(a.integer_attribute("/", "seed") == 11);
  CHECK(c.integer_attribute("/", "seed") == 12);
  CHECK(a.doubles("/gpus/changes/time_s") != c.doubles("/gpus/changes/time_s"));
}

TEST_CASE("bad input exits with status 2, one located line, and no result file", "[cli][bad-input]") {
  struct Case {
    std::string name, toml, expected;
  };
  const std::vector<Case> cases = {
      {"unknown key", "[fleet]\nnodes = 2\ngpu_count = 4\n", "s.toml:3:1: fleet.gpu_count: unknown key"},
      {"wrong type", "[fleet]\nnodes = \"many\"\n",
       "s.toml:2:1: fleet.nodes: expected an integer, found a string"},
      {"negative count", "[fleet]\nnodes = -1\n", "s.toml:2:1: fleet.nodes: must be positive, got -1"},
      {"zero count", "[fleet]\ngpus_per_node = 0\n",
       "s.toml:2:1: fleet.gpus_per_node: must be positive, got 0"},
      {"missing file", "[workload]\njobs_csv = \"missing.csv\"\n",
       "s.toml:2:1: workload.jobs_csv: file not found"},
      {"unknown job class", "[workload]\n[[workload.jobs]]\nn_gpus = 1\nclass = \"llama\"\n",
       "s.toml:4:1: class: unknown job class 'llama'"},
      {"unknown stack", "[workload]\n[[workload.jobs]]\nn_gpus = 1\nclass = \"vit\"\nstack = \"turbo\"\n",
       "s.toml:5:1: workload.jobs[0].stack: unknown stack 'turbo' (known: eager, amp, compiled, optimized)"},
      {"unknown GPU", "[fleet]\ngpu = \"tpu\"\n[workload]\n[[workload.jobs]]\nn_gpus = 1\nclass = \"vit\"\n",
       "s.toml:2:1: fleet.gpu: unknown GPU 'tpu'"},
      {"unknown policy",
       "[scheduler]\npolicy = \"lottery\"\n[workload]\n[[workload.jobs]]\nn_gpus = 1\nclass = \"vit\"\n",
       "s.toml:2:1: scheduler.policy: unknown policy 'lottery'"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    TempDir dir;
    auto scenario = dir.write("s.toml", c.toml);
    auto out = dir / "out.h5";
    auto r = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() + " run s.toml -o " +
                         out.string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.expected) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(out));
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
    CHECK(files == 1);  // only the scenario: no temporary left either
  }
  auto r = run_command(fleetwatt_command() + " run /no/such.toml");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/no/such.toml: cannot open scenario file") != std::string::npos);
  CHECK(run_command(fleetwatt_command() + " run").exit_code == 2);  // usage error
}

TEST_CASE("an interrupted run leaves no result file", "[cli]") {
  TempDir dir;
  auto scenario = dir.write("s.toml",
                            "[fleet]\nnodes = 400\n[workload]\nhorizon_s = 864000\n[workload.generator]\n"
                            "rate_per_hour = 400\n[[workload.generator.mix]]\nclass = \"vit\"\n"
                            "n_gpus = [1, 4]\nepochs = [1, 50]\n");
  auto out = dir / "out.h5";
  // SIGINT half a second in: the engine stops, the writer removes its temporary file.
  auto r = run_command("timeout --preserve-status -s INT 0.5 " + fleetwatt_command() + " run " +
                       scenario.string() + " -o " + out.string());
  CHECK(r.exit_code == 130);
  CHECK(r.err.find("interrupted") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 1);
}

TEST_CASE("every shipped scenario runs", "[cli][scenarios]") {
  TempDir dir;
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() / "examples" / "scenarios")) {
    if (e.path().extension() != ".toml") continue;
    // Shipped scenarios run from a clone alone: nothing they read lies outside the repository.
    std::ifstream text(e.path());
    const std::string body{std::istreambuf_iterator<char>(text), std::istreambuf_iterator<char>()};
    INFO(e.path());
    CHECK(body.find("shared/data") == std::string::npos);
    ++n;
    // Quiet: no warning, and no progress line (a day of inference-campus runs longer than the 30 s
    // between them).
    auto r = run_command("FLEETWATT_HEARTBEAT_S=3600 " + fleetwatt_command() + " run -q " +
                         e.path().string() + " -o " + (dir / "x.h5").string());
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
  }
  CHECK(n >= 7);
}

TEST_CASE("a relative [output] path is beside the scenario, -o stays relative to the current folder",
          "[cli][output]") {
  // docs/scenario.md, Scenario reference: "Relative paths resolve against the scenario file's folder."
  TempDir dir;
  std::filesystem::create_directory(dir / "scenarios");
  dir.write("scenarios/s.toml", kSmall + "[output]\npath = \"result.h5\"\n");
  auto r =
      run_command("cd " + dir.path().string() + " && " + fleetwatt_command() + " run -q scenarios/s.toml");
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::exists(dir / "scenarios" / "result.h5"));
  CHECK_FALSE(std::filesystem::exists(dir / "result.h5"));
  r = run_command("cd " + dir.path().string() + " && " + fleetwatt_command() +
                  " run -q scenarios/s.toml -o here.h5");
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::exists(dir / "here.h5"));
  CHECK_FALSE(std::filesystem::exists(dir / "scenarios" / "here.h5"));
}

TEST_CASE("a result path that cannot be written is refused before the simulation",
          "[cli][output][bad-input]") {
  // Ten days of 400 servers: minutes of simulation before the writer would notice (the exit status is 2 only
  // when the path is checked first; `timeout` keeps a regression from hanging the suite).
  const std::string big =
      "[fleet]\nnodes = 400\n[workload]\nhorizon_s = 864000\n[workload.generator]\nrate_per_hour = 400\n"
      "[[workload.generator.mix]]\nclass = \"vit\"\nn_gpus = [1, 4]\nepochs = [1, 50]\n";
  struct Case {
    std::string name, scenario_extra, args, expected;
  };
  const std::vector<Case> cases = {
      {"a folder", "", "run s.toml -o existing", "fleetwatt: error: -o: existing: is a folder"},
      {"a missing folder", "", "run s.toml -o missing/out.h5",
       "fleetwatt: error: -o: missing/out.h5: folder missing does not exist"},
      {"an unwritable place", "", "run s.toml -o /proc/fleetwatt-out.h5",
       "fleetwatt: error: -o: /proc/fleetwatt-out.h5: cannot be written"},
      // The writer renames its file over the target: never over a pipe or a device such as /dev/null.
      {"a pipe", "", "run s.toml -o pipe", "fleetwatt: error: -o: pipe: exists and is not a regular file"},
      {"the scenario itself", "", "run s.toml -o s.toml",
       "fleetwatt: error: -o: s.toml: is the scenario this command reads; give another file name"},
      {"the scenario's [output] path in a missing folder", "[output]\npath = \"missing/out.h5\"\n",
       "run s.toml",
       "fleetwatt: error: s.toml:12:1: output.path: missing/out.h5: folder missing does not exist"},
      {"compare -o a folder", "", "compare s.toml --policies fifo -o existing",
       "fleetwatt: error: -o: existing: is a folder"},
      {"compare -o in a missing folder", "", "compare s.toml --policies fifo -o missing/c.h5",
       "fleetwatt: error: -o: missing/c.h5: folder missing does not exist"},
      {"compare --csv in a missing folder", "", "compare s.toml --policies fifo --csv missing/c.csv",
       "fleetwatt: error: --csv: missing/c.csv: folder missing does not exist"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    TempDir dir;
    const auto scenario = dir.write("s.toml", big + c.scenario_extra);
    std::filesystem::create_directory(dir / "existing");
    REQUIRE(mkfifo((dir / "pipe").c_str(), 0600) == 0);
    auto r =
        run_command("cd " + dir.path().string() + " && timeout 60 " + fleetwatt_command() + " " + c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind(c.expected, 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    // Nothing created: the scenario (unchanged), the empty folder and the pipe only.
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) ++files;
    CHECK(files == 3);
    CHECK(std::filesystem::file_size(scenario) == big.size() + c.scenario_extra.size());
  }
}
