// fleetwatt bench's scaling options end to end: --scale and --no-topology change what is timed, and
// --network-scaling runs the scaled scenario with and without its network and the large run, each in a
// process of its own; --repeat gives the median of several runs with their range; scenarios it cannot scale
// are refused with one line and exit status 2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>
#include <string>

#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {
// 4 servers of 4 GPUs on a fat-tree, one simulated hour.
const std::string kNetworked = R"(seed = 3
[fleet]
nodes = 4
gpus_per_node = 4
[facility]
pue = 1.2
carbon_kg_per_kwh = 0.5
[topology]
kind = "fat_tree"
[workload]
horizon_s = 3600
[workload.generator]
rate_per_hour = 20
[[workload.generator.mix]]
class = "bert"
n_gpus = [4, 8]
epochs = [1, 3]
dataset_samples = [10000, 20000]
)";
}  // namespace

TEST_CASE("bench --scale multiplies the fleet and --no-topology drops the network", "[cli]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kNetworked);
  const auto r = run_command(fleetwatt_command() + " bench " + s.string() +
                             " --scale 2.5 --no-topology --no-output --predict-jobs 0 --queue-events 10");
  CHECK(r.exit_code == 0);
  // 4 nodes x 2.5 = 10 nodes of 4 GPUs.
  CHECK(r.out.find("(40 GPUs, 1.0 h") != std::string::npos);
}

TEST_CASE("bench --repeat gives the median run's engine and wall time with the range of the runs", "[cli]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kNetworked);
  const auto r = run_command(fleetwatt_command() + " bench " + s.string() +
                             " --no-output --no-memory --predict-jobs 0 --queue-events 10 --repeat 3");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  // One line of figures each, the median inside the range: lo <= median <= hi.
  const std::regex engine(R"(engine events +(\d+) in ([0-9.]+) s = [0-9.]+ M events/s \(engine loop incl\. )"
                          R"(power accounting; the median; 3 runs: ([0-9.]+)-([0-9.]+) s\))");
  const std::regex wall(
      R"(whole run wall time +([0-9.]+) s \(load, predict, simulate; 3 runs: ([0-9.]+)-([0-9.]+) s\))");
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, engine));
  CHECK(std::stod(m[3]) <= std::stod(m[2]));
  CHECK(std::stod(m[2]) <= std::stod(m[4]));
  REQUIRE(std::regex_search(r.out, m, wall));
  CHECK(std::stod(m[2]) <= std::stod(m[1]));
  CHECK(std::stod(m[1]) <= std::stod(m[3]));
  std::size_t lines = 0;
  for (auto at = r.out.find("engine events"); at != std::string::npos;
       at = r.out.find("engine events", at + 1))
    ++lines;
  CHECK(lines == 1);
  // One run (the default) prints no range.
  const auto one = run_command(fleetwatt_command() + " bench " + s.string() +
                               " --no-output --no-memory --predict-jobs 0 --queue-events 10");
  CHECK(one.exit_code == 0);
  CHECK(one.out.find("runs:") == std::string::npos);
  CHECK(run_command(fleetwatt_command() + " bench " + s.string() + " --repeat 0").exit_code == 2);
}

TEST_CASE("bench --network-scaling times the scaled run with and without the network, and the large run",
          "[cli]") {
  TempDir dir;
  const auto s = dir.write("s.toml", kNetworked);
  const auto r = run_command(fleetwatt_command() + " bench " + s.string() +
                             " --network-scaling 2 --network-gpus 64 --network-repeats 2");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  // 2 x 4 nodes x 4 GPUs = 32 GPUs, four times (two pairs with and without); 64 GPUs = 16 nodes once.
  CHECK(r.out.find("at 2x its fleet and arrivals (32 GPUs)") != std::string::npos);
  std::size_t runs_32 = 0;
  for (auto at = r.out.find("(32 GPUs, 1.0 h"); at != std::string::npos;
       at = r.out.find("(32 GPUs, 1.0 h", at + 1))
    ++runs_32;
  CHECK(runs_32 == 4);
  CHECK(r.out.find("pair 2: wall") != std::string::npos);
  CHECK(r.out.find("(64 GPUs, 1.0 h") != std::string::npos);
  CHECK(r.out.find("2x with / without the network, median of 2 pairs: wall") != std::string::npos);
  CHECK(r.out.find("64 GPUs with the network: wall") != std::string::npos);
}

TEST_CASE("bench refuses to scale what it cannot, with one line and status 2", "[cli][bad-input]") {
  TempDir dir;
  std::string plain = kNetworked;
  plain.erase(plain.find("[topology]"), std::string("[topology]\nkind = \"fat_tree\"\n").size());
  const auto s = dir.write("plain.toml", plain);
  auto r = run_command(fleetwatt_command() + " bench " + s.string() + " --network-scaling 2");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("plain.toml: --network-scaling: the scenario has no [topology]") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  r = run_command(fleetwatt_command() + " bench " +
                  (source_dir() / "examples/scenarios/placement-packed.toml").string() +
                  " --scale 2 --predict-jobs 0");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--scale: scaling needs a [workload.generator] workload") != std::string::npos);
}
