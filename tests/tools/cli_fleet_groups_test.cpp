// `fleetwatt run` on a fleet of node groups: the summary names the groups, /fleet and /jobs/gpu describe
// the run, no job's nodes span two groups, the file is deterministic, and misuse exits 2 with a location.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {
// 3 A800 servers x 4 GPUs, then 4 T4 servers x 2 GPUs.
const std::string kHetero = R"(seed = 5
[fleet]
node_base_w = 200
[[fleet.group]]
name = "a800s"
nodes = 3
gpus_per_node = 4
gpu = "a800"
[[fleet.group]]
name = "t4s"
nodes = 4
gpus_per_node = 2
gpu = "t4"
node_base_w = 80
[scheduler]
placement = "pack"
[workload]
horizon_s = 7200
[workload.generator]
rate_per_hour = 60
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 2, 4, 8]
epochs = [1, 3]
dataset_samples = [5000, 20000]
)";

std::vector<std::int64_t> node_list(const std::string& s) {
  std::vector<std::int64_t> out;
  std::stringstream ss(s);
  for (std::string n; std::getline(ss, n, ',');) out.push_back(std::stoll(n));
  return out;
}
}  // namespace

TEST_CASE("a run on node groups records them and keeps every job on one group", "[cli][fleet]") {
  TempDir dir;
  const auto scenario = dir.write("h.toml", kHetero);
  auto r = run_command(fleetwatt_command() + " run " + scenario.string() + " -o " + (dir / "a.h5").string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("2 node groups") != std::string::npos);
  CHECK(r.out.find("t4s: 4 nodes x 2 t4 (idle 10 W/GPU, node base 80 W)") != std::string::npos);
  fleetwatt::results::ResultReader f(dir / "a.h5");
  CHECK(f.strings("/fleet/name") == std::vector<std::string>{"a800s", "t4s"});
  CHECK(f.strings("/fleet/gpu") == std::vector<std::string>{"a800", "t4"});
  CHECK(f.integers("/fleet/nodes") == std::vector<std::int64_t>{3, 4});
  CHECK(f.doubles("/fleet/node_base_W") == std::vector<double>{200.0, 80.0});  // default, then override
  CHECK(f.integer_attribute("/gpus", "count") == 3 * 4 + 4 * 2);
  for (const auto& d : f.datasets()) {
    INFO(d);
    CHECK_FALSE(f.string_attribute(d, "units").empty());
  }
  // Servers 0-2 are the A800 group, 3-6 the T4 group.
  const auto nodes = f.strings("/jobs/nodes");
  const auto gpu = f.strings("/jobs/gpu");
  std::set<std::string> types;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].empty()) continue;
    std::set<int> groups;
    for (auto n : node_list(nodes[i])) groups.insert(n < 3 ? 0 : 1);
    CHECK(groups.size() == 1);
    CHECK(gpu[i] == (*groups.begin() == 0 ? "a800" : "t4"));
    types.insert(gpu[i]);
  }
  CHECK(types.size() == 2);  // the workload used both types
}

TEST_CASE("the same heterogeneous scenario and seed give identical datasets", "[cli][fleet]") {
  TempDir dir;
  const auto scenario = dir.write("h.toml", kHetero);
  REQUIRE(run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + (dir / "a.h5").string())
              .exit_code == 0);
  REQUIRE(run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + (dir / "b.h5").string())
              .exit_code == 0);
  fleetwatt::results::ResultReader a(dir / "a.h5"), b(dir / "b.h5");
  for (const char* d : {"/facility/facility_power_W", "/jobs/start_s", "/jobs/energy_J", "/jobs/epochs"})
    CHECK(a.doubles(d) == b.doubles(d));
  CHECK(a.strings("/jobs/nodes") == b.strings("/jobs/nodes"));
  CHECK(a.strings("/jobs/gpu") == b.strings("/jobs/gpu"));
}

TEST_CASE("misused node groups exit 2 with the location", "[cli][fleet]") {
  TempDir dir;
  auto both = dir.write("both.toml",
                        "[fleet]\ngpus_per_node = 2\n" + kHetero.substr(kHetero.find("[[fleet.group]]")));
  auto r = run_command(fleetwatt_command() + " run " + both.string() + " -o " + (dir / "x.h5").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("both.toml:2:1: fleet.gpus_per_node: cannot be given with [[fleet.group]]") !=
        std::string::npos);
  auto bad = kHetero;
  bad.replace(bad.find("gpu = \"t4\""), 10, "gpu = \"t5\"");
  r = run_command(fleetwatt_command() + " run " + dir.write("bad.toml", bad).string() + " -o " +
                  (dir / "x.h5").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bad.toml:13:1: fleet.group[1].gpu:") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "x.h5"));
}

TEST_CASE("the facility power cap holds on a heterogeneous fleet in both modes", "[cli][fleet][policies]") {
  // Queued jobs could land on A800 (idle 62 W) or T4 (idle 10 W) servers: the cap must hold on either.
  for (const char* mode : {"queue", "gpu_cap"}) {
    INFO(mode);
    TempDir dir;
    auto s = kHetero;
    s.replace(s.find("[scheduler]\n"), 12,
              std::string("[scheduler]\npolicy = \"powercap\"\ncap_w = 4000\nmode = \"") + mode + "\"\n");
    auto r = run_command(fleetwatt_command() + " run -q " + dir.write("p.toml", s).string() + " -o " +
                         (dir / "p.h5").string());
    REQUIRE(r.exit_code == 0);
    fleetwatt::results::ResultReader f(dir / "p.h5");
    CHECK(f.doubles("/summary/peak_facility_W").at(0) <= 4000.0 + 1e-6);
    CHECK(f.doubles("/summary/jobs_finished").at(0) > 50.0);
  }
}

TEST_CASE("replayed Alibaba 2023 jobs run their recorded time on whichever GPU type they get",
          "[cli][fleet][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  TempDir dir;
  // A small fleet of three types, and arrivals 20x as dense, so that jobs spill from the A800 (reference)
  // server onto T4 and V100 servers.
  const auto trace = (data / "alibaba-gpu-v2023" / "openb_pod_list_default.csv").string();
  const auto scenario = dir.write("r.toml", R"(seed = 7
[[fleet.group]]
nodes = 1
gpus_per_node = 8
gpu = "a800"
[[fleet.group]]
nodes = 8
gpus_per_node = 2
gpu = "t4"
[[fleet.group]]
nodes = 2
gpus_per_node = 4
gpu = "v100"
[workload]
horizon_s = 20000000
[workload.trace]
file = ")" + trace + R"("
format = "alibaba2023"
max_jobs = 300
arrival_scale = 20
)");
  REQUIRE(run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + (dir / "r.h5").string())
              .exit_code == 0);
  fleetwatt::results::ResultReader f(dir / "r.h5");
  const auto start = f.doubles("/jobs/start_s"), end = f.doubles("/jobs/end_s");
  const auto recorded = f.doubles("/jobs/recorded_runtime_s");
  const auto gpu = f.strings("/jobs/gpu");
  std::map<std::string, std::pair<double, double>> totals;  // type -> (simulated, recorded) run time
  std::map<std::string, int> jobs;
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    if (std::isnan(end[i])) continue;
    const double target = std::max(1.0, recorded[i]);  // zero-length records replay as 1 s
    totals[gpu[i]].first += end[i] - start[i];
    totals[gpu[i]].second += target;
    ++jobs[gpu[i]];
    // The datasheet predictor's epoch is a whole number of steps (ceil(samples / batch)), so a match is
    // exact only to a step per epoch: within 0.6 % for jobs of 10 minutes or more (0.51 % at worst).
    if (target >= 600.0) CHECK(std::fabs(end[i] - start[i] - target) <= 0.006 * target);
  }
  for (const char* type : {"a800", "t4", "v100"}) {
    INFO(type);
    CHECK(jobs[type] >= 50);
    CHECK(totals[type].first == Approx(totals[type].second).epsilon(1e-4));
  }
}

TEST_CASE("run --help names node groups", "[cli][fleet]") {
  auto r = run_command(fleetwatt_command() + " run --help");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("[[fleet.group]]") != std::string::npos);
}

TEST_CASE("node groups of one node size run under a [topology]", "[cli][fleet][network]") {
  TempDir dir;
  // Two A800 servers, then two V100 servers, 4 GPUs each, under two leaves; 8-GPU jobs span two servers of
  // one group (and one leaf) and talk over the network.
  const auto scenario = dir.write("t.toml", R"(seed = 3
[[fleet.group]]
nodes = 2
gpus_per_node = 4
gpu = "a800"
[[fleet.group]]
nodes = 2
gpus_per_node = 4
gpu = "v100"
[topology]
kind = "leaf_spine"
hosts_per_leaf = 2
spines = 1
nic_gbps = 10
comm_overlap = 0
storage_servers = 0
[workload]
horizon_s = 20000
[[workload.jobs]]
n_gpus = 8
epochs = 2
model = "resnet50"
params = 25.6e6
batch_size = 256
dataset_samples = 50000
[[workload.jobs]]
n_gpus = 8
epochs = 2
model = "resnet50"
params = 25.6e6
batch_size = 256
dataset_samples = 50000
)");
  auto r =
      run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + (dir / "t.h5").string());
  REQUIRE(r.exit_code == 0);
  fleetwatt::results::ResultReader f(dir / "t.h5");
  CHECK(f.strings("/jobs/nodes") == std::vector<std::string>{"0,1", "2,3"});
  CHECK(f.strings("/jobs/gpu") == std::vector<std::string>{"a800", "v100"});
  CHECK(f.doubles("/summary/jobs_finished").at(0) == 2.0);
  CHECK(f.has("/network/power_W"));
  const auto comm = f.doubles("/jobs/comm_s");
  CHECK(comm.at(0) > 0.0);  // two servers: gradients cross the leaf
  CHECK(comm.at(1) > 0.0);
}
