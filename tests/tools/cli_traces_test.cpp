// `fleetwatt trace stats|convert|fleet` and `fleetwatt compare` end to end: outputs, files and every
// bad-input case (exit status 2, one located line).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include <map>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using namespace fleetwatt::runs;

namespace {

std::string sample(const char* name) {
  return (std::filesystem::path(FLEETWATT_TRACE_SAMPLES) / name).string();
}
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kCompare = R"(seed = 3
[fleet]
nodes = 2
gpus_per_node = 4
gpu_idle_w = 60
node_base_w = 300
[scheduler.powercap]
cap_w = 2500.0
[workload]
horizon_s = 7200
[workload.generator]
rate_per_hour = 20
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 2, 4]
epochs = [1, 3]
dataset_samples = [10000, 30000]
)";

}  // namespace

TEST_CASE("trace stats summarises a trace and reports the malformed records it skipped", "[cli][traces]") {
  auto r = run_command(fleetwatt_command() + " trace stats " + sample("helios_sample.csv"));
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("GPU jobs                    4") != std::string::npos);
  // 1 + 4 + 1 + 16 GPUs over 36848, 249, 675233, 86400 s: 190.5 + ... = 582.1 GPU-hours.
  CHECK(r.out.find("GPU-hours (whole GPUs)      582.1") != std::string::npos);
  CHECK(r.err.find("helios_sample.csv:7:21: gpu_num") != std::string::npos);
}

TEST_CASE("trace stats --strict refuses a malformed trace with status 2 and one located line",
          "[cli][traces]") {
  auto r = run_command(fleetwatt_command() + " trace stats --strict " + sample("helios_sample.csv"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("helios_sample.csv:7:21: gpu_num: 'eight' is not a number") != std::string::npos);
  auto unknown =
      run_command(fleetwatt_command() + " trace stats --format slurm " + sample("helios_sample.csv"));
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("unknown trace format 'slurm'") != std::string::npos);
  CHECK(run_command(fleetwatt_command() + " trace stats /no/such/trace.csv").exit_code == 2);
}

TEST_CASE("a trace job the predictor refuses is reported at its record's file and line", "[cli][traces]") {
  // Line 7 lacks a batch size; the datasheet predictor needs one. The error must name trace.csv:7 (not just
  // "batch_size: must be at least 1"), exit 2 and leave no result file behind.
  TempDir dir;
  dir.write("trace.csv",
            "id,submit_s,n_gpus,epochs,model,batch_size,dataset_samples\n"
            "1,0,1,1,resnet50,64,10000\n"
            "2,10,1,1,resnet50,64,10000\n"
            "3,20,1,1,resnet50,64,10000\n"
            "4,30,1,1,resnet50,64,10000\n"
            "5,40,1,1,resnet50,64,10000\n"
            "6,50,1,1,resnet50,,10000\n");
  const auto scenario = dir.write("s.toml",
                                  "[fleet]\nnodes = 2\ngpus_per_node = 4\ngpu = \"a800\"\n"
                                  "[workload]\nhorizon_s = 3600\n"
                                  "[workload.trace]\nfile = \"trace.csv\"\nformat = \"fleetwatt_csv\"\n");
  const auto out = dir / "out.h5";
  auto r = run_command(fleetwatt_command() + " run " + scenario.string() + " -o " + out.string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("trace.csv:7: batch_size: must be at least 1") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("trace convert writes a job table that reads back to the same totals", "[cli][traces]") {
  TempDir dir;
  const auto out = dir / "swf.csv";
  REQUIRE(run_command(fleetwatt_command() + " trace convert " + sample("sample.swf") + " -o " + out.string())
              .exit_code == 0);
  auto a = run_command(fleetwatt_command() + " trace stats " + sample("sample.swf"));
  auto b = run_command(fleetwatt_command() + " trace stats --format fleetwatt_csv " + out.string());
  REQUIRE(b.exit_code == 0);
  auto line = [](const std::string& s, const std::string& key) { return s.substr(s.find(key), 60); };
  // 8 x 3600 + 1 x 120 + 16 x 900 GPU-s = 12 GPU-hours.
  CHECK(line(a.out, "GPU-hours (whole").find("12.0") != std::string::npos);
  CHECK(line(a.out, "GPU-hours (whole") == line(b.out, "GPU-hours (whole"));
}

TEST_CASE("trace fleet derives the shipped Alibaba 2023 fleet from its node list", "[cli][traces][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  TempDir dir;
  const auto node_list = data / "alibaba-gpu-v2023" / "openb_node_list_gpu_node.csv";
  auto r = run_command(fleetwatt_command() + " trace fleet " + node_list.string() + " -o " +
                       (dir / "fleet.toml").string() + " --node-base-w 400");
  REQUIRE(r.exit_code == 0);
  // Counted here from the CSV (sn,cpu_milli,memory_mib,gpu,model): nodes per (GPUs per node, model).
  std::map<std::string, std::pair<int, int>> expected;  // "8xG2" -> (nodes, GPUs per node)
  {
    std::ifstream in(node_list);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
      if (f.size() < 5 || std::stoi(f[3]) == 0) continue;
      auto& e = expected[f[3] + "x" + f[4]];
      ++e.first;
      e.second = std::stoi(f[3]);
    }
  }
  // SOURCE.txt: 1,213 GPU nodes holding 6,212 GPUs in 12 (count, model) groups.
  int nodes = 0, gpus = 0;
  for (const auto& [name, e] : expected) nodes += e.first, gpus += e.first * e.second;
  CHECK(nodes == 1213);
  CHECK(gpus == 6212);
  CHECK(expected.size() == 12);
  CHECK(expected.at("8xG2").first == 549);
  CHECK(expected.at("2xT4").first == 387);
  const auto fleet = slurp(dir / "fleet.toml");
  const auto shipped =
      fleetwatt::runs::load_scenario(source_dir() / "examples" / "public-data" / "alibaba-2023-replay.toml");
  CHECK(shipped.fleet.nodes == 1213);
  CHECK(shipped.fleet.total_gpus() == 6212);
  REQUIRE(shipped.fleet.groups.size() == expected.size());
  for (const auto& g : shipped.fleet.groups) {
    INFO(g.name);
    REQUIRE(expected.count(g.name) == 1);
    CHECK(static_cast<int>(g.nodes) == expected.at(g.name).first);
    CHECK(static_cast<int>(g.gpus_per_node) == expected.at(g.name).second);
    CHECK(fleet.find(fmt::format("name = \"{}\"\nnodes = {}\ngpus_per_node = {}\n", g.name, g.nodes,
                                 g.gpus_per_node)) != std::string::npos);
  }
  // The documented model mapping; anonymised models get the stand-in.
  CHECK(fleet.find("name = \"4xV100M32\"\nnodes = 9\ngpus_per_node = 4\ngpu = \"v100\"") !=
        std::string::npos);
  CHECK(fleet.find("gpus_per_node = 1\ngpu = \"a10\"") != std::string::npos);
  CHECK(fleet.find("gpu = \"a800\"  # G3: anonymised model, stand-in") != std::string::npos);
}

TEST_CASE("compare prints, and writes as CSV and HDF5, one row per policy", "[cli][compare]") {
  TempDir dir;
  const auto scenario = dir.write("s.toml", kCompare);
  auto r = run_command(fleetwatt_command() + " compare " + scenario.string() +
                       " --policies fifo,easy,powercap --csv " + (dir / "c.csv").string() + " -o " +
                       (dir / "c.h5").string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("powercap") != std::string::npos);
  const auto csv = slurp(dir / "c.csv");
  CHECK(
      csv.rfind("policy,jobs_done,jct_mean_s,jct_p50_s,jct_p99_s,wait_mean_s,makespan_s,gpu_util,it_energy_J,"
                "facility_energy_J,peak_facility_W,p95_facility_W,carbon_kg,cost,",
                0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 4);
  fleetwatt::results::ResultReader h5(dir / "c.h5");
  CHECK(h5.strings("/comparison/policy") == std::vector<std::string>{"fifo", "easy", "powercap"});
  for (const char* p : {"fifo", "easy", "powercap"}) {
    INFO(p);
    CHECK(h5.has(std::string("/policies/") + p + "/facility/facility_power_W"));
    CHECK(h5.has(std::string("/policies/") + p + "/jobs/inferred"));
  }
  for (double w : h5.doubles("/policies/powercap/facility/facility_power_W")) CHECK(w <= 2500.0 + 1e-6);
}

TEST_CASE("compare refuses an unknown policy with status 2", "[cli][compare]") {
  TempDir dir;
  const auto scenario = dir.write("s.toml", kCompare);
  auto r = run_command(fleetwatt_command() + " compare " + scenario.string() + " --policies fifo,bogus");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown policy 'bogus'") != std::string::npos);
  auto carbon = run_command(fleetwatt_command() + " compare " + scenario.string() + " --policies carbon");
  CHECK(carbon.exit_code == 2);
  CHECK(carbon.err.find("[grid.carbon]") != std::string::npos);
}
