// What a scenario may reach: its [output] path stays in its folder (an absolute path or one climbing out
// with ".." is refused at the key unless -o names the file), no output may be a file the run reads, and a
// path naming an unrelated file does not have its content quoted back in the error.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace fleetwatt::test;

namespace {

constexpr const char* kSmall = R"([fleet]
nodes = 1
gpus_per_node = 1
[workload]
horizon_s = 100
[[workload.jobs]]
n_gpus = 1
epochs = 1
peak_w = 300
peak_s = 10
valley_w = 100
valley_s = 10
)";

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a scenario's [output] path outside its folder is refused at the key", "[cli]") {
  TempDir dir;
  fs::create_directories(dir / "scenarios");
  const auto victim = dir.write("victim.txt", "keep me\n");
  const auto up =
      dir.write("scenarios/up.toml", std::string(kSmall) + "[output]\npath = \"../victim.txt\"\n");
  auto r = run_command(fleetwatt_binary().string() + " run -q " + up.string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(up.string() + ":14:1: output.path: ") != std::string::npos);
  CHECK(r.err.find("is outside the scenario's folder") != std::string::npos);
  CHECK(contents(victim) == "keep me\n");
  // An absolute path elsewhere: the same.
  const auto abs = dir.write("scenarios/abs.toml", std::string(kSmall) + "[output]\npath = \"" +
                                                       (dir / "elsewhere.h5").string() + "\"\n");
  r = run_command(fleetwatt_binary().string() + " run -q " + abs.string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("abs.toml:14:1: output.path: ") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "elsewhere.h5"));
  // Inside the folder (a subfolder) it runs; with -o the user chooses, wherever the scenario's path points.
  fs::create_directories(dir / "scenarios" / "out");
  const auto in = dir.write("scenarios/in.toml", std::string(kSmall) + "[output]\npath = \"out/r.h5\"\n");
  CHECK(run_command(fleetwatt_binary().string() + " run -q " + in.string()).exit_code == 0);
  CHECK(fs::exists(dir / "scenarios" / "out" / "r.h5"));
  CHECK(run_command(fleetwatt_binary().string() + " run -q " + up.string() + " -o " +
                    (dir / "mine.h5").string())
            .exit_code == 0);
  CHECK(fs::exists(dir / "mine.h5"));
  CHECK(contents(victim) == "keep me\n");
}

TEST_CASE("an output that is a file the run reads is refused, and the file kept", "[cli]") {
  TempDir dir;
  const std::string jobs =
      "job_id,submit_s,n_gpus,epochs,peak_s,peak_W,valley_s,valley_W\n1,0,1,1,10,300,10,100\n";
  const auto csv = dir.write("jobs.csv", jobs);
  const auto scenario = dir.write(
      "s.toml",
      "[fleet]\nnodes = 1\ngpus_per_node = 1\n[workload]\nhorizon_s = 100\njobs_csv = \"jobs.csv\"\n");
  auto r = run_command(fleetwatt_binary().string() + " run -q " + scenario.string() + " -o " + csv.string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "fleetwatt: error: -o: " + csv.string() + ": is " + csv.string() + ", which the run reads\n");
  CHECK(contents(csv) == jobs);
  // The scenario's own [output] path naming its jobs: the same, at the key.
  const auto own = dir.write("own.toml",
                             "[fleet]\nnodes = 1\ngpus_per_node = 1\n[workload]\nhorizon_s = "
                             "100\njobs_csv = \"jobs.csv\"\n[output]\npath = \"jobs.csv\"\n");
  r = run_command(fleetwatt_binary().string() + " run -q " + own.string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("own.toml:8:1: output.path: ") != std::string::npos);
  CHECK(contents(csv) == jobs);
  // compare -o and --csv too.
  r = run_command(fleetwatt_binary().string() + " compare -q " + scenario.string() + " --csv " +
                  csv.string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("which the run reads") != std::string::npos);
  CHECK(contents(csv) == jobs);
}

TEST_CASE("a jobs_csv or topology file naming an unrelated file does not quote it", "[cli]") {
  TempDir dir;
  const auto secret = dir.write("secret", "root:x:0:0:TOPSECRET:/root:/bin/bash\n");
  const auto secret_dot = dir.write("secret.dot", "TOPSECRET password here\n");
  const auto jobs = dir.write("jobs.toml",
                              "[fleet]\nnodes = 1\ngpus_per_node = 1\n[workload]\nhorizon_s = "
                              "100\njobs_csv = \"secret\"\n");
  auto r = run_command(fleetwatt_binary().string() + " run -q " + jobs.string() + " -o " +
                       (dir / "r.h5").string());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("missing column (its first line is not a CSV header: is it the right file?)") !=
        std::string::npos);
  CHECK(r.err.find("TOPSECRET") == std::string::npos);
  const auto topo =
      dir.write("topo.toml", std::string(kSmall) + "[topology]\nkind = \"file\"\nfile = \"secret.dot\"\n");
  r = run_command(fleetwatt_binary().string() + " run -q " + topo.string() + " -o " +
                  (dir / "r.h5").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("cannot parse DOT: the file does not begin with graph, digraph or strict") !=
        std::string::npos);
  CHECK(r.err.find("TOPSECRET") == std::string::npos);
  // A trace in fleetwatt's own CSV: its unknown-column message does not name the line either.
  const auto trace = dir.write("trace.toml",
                               "[fleet]\nnodes = 1\ngpus_per_node = 1\n[workload]\nhorizon_s = "
                               "100\n[workload.trace]\nfile = \"secret\"\nformat = \"fleetwatt_csv\"\n");
  r = run_command(fleetwatt_binary().string() + " run -q " + trace.string() + " -o " +
                  (dir / "r.h5").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("its first line is not a CSV header") != std::string::npos);
  CHECK(r.err.find("TOPSECRET") == std::string::npos);
  CHECK_FALSE(fs::exists(dir / "r.h5"));
}

TEST_CASE("a topology file that is missing or of no known type is located at the scenario's topology.file",
          "[cli][confinement]") {
  TempDir dir;
  for (const std::string file : {"missing.dot", "topo.txt"}) {
    if (file == "topo.txt") dir.write(file, "graph { a -- b }\n");
    const auto scenario =
        dir.write("s.toml", std::string(kSmall) + "[topology]\nkind = \"file\"\nfile = \"" + file + "\"\n");
    const auto r = run_command(fleetwatt_binary().string() + " run -q " + scenario.string() + " -o " +
                               (dir / "r.h5").string());
    INFO(r.err);
    CHECK(r.exit_code == 2);
    // The scenario's line of the key, then the path it names: the user sees where to correct it.
    CHECK(r.err.starts_with("fleetwatt: error: " + scenario.string() + ":"));
    CHECK(r.err.find(": topology.file: " + (dir / file).string() + ": ") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "r.h5"));
  }
}
