// The predictor/network seam end to end through the `fleetwatt` binary: a job's compute time is the
// predictor's compute part whether or not a [topology] re-times its communication and I/O; a job that names
// only a zoo model gets its traffic from the zoo; and the hardware bounds predictions and explicit phases.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {

// 4 servers x 4 A100s; the job spreads one GPU per server in turn over all of them, so its ring crosses the
// 100 Gb/s NICs.
const char* kFleet = R"(
[fleet]
nodes = 4
gpus_per_node = 4
gpu = "a100-sxm-80gb"
node_base_w = 0
[scheduler]
placement = "spread"
[workload]
horizon_s = 100000
[[workload.jobs]]
id = 7
model = "gpt2-medium"
n_gpus = 16
epochs = 2
batch_size = 64
dataset_samples = 6400
)";
const char* kTopology = R"(
[topology]
kind = "leaf_spine"
hosts_per_leaf = 2
spines = 1
nic_gbps = 100
storage_servers = 0
)";

nlohmann::json predict_json(const std::filesystem::path& scenario) {
  const auto r = run_command(fleetwatt_binary().string() + " predict --json --scenario " + scenario.string() +
                             " --job 7");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("a zoo-only job's compute is the predictor's compute part, with or without a fabric",
          "[cli][parts]") {
  TempDir dir;
  const auto plain = dir.write("plain.toml", kFleet);
  const auto fabric = dir.write("fabric.toml", std::string(kFleet) + kTopology);
  const auto j = predict_json(plain);
  // The parts add up to the epoch.
  const auto& parts = j.at("parts");
  double sum = 0;
  for (const char* k : {"compute", "comm", "io", "checkpoint"}) sum += parts.at(k).at("s").get<double>();
  CHECK(sum == Approx(j.at("epoch_s").get<double>()).epsilon(1e-12));
  const double compute_s = parts.at("compute").at("s").get<double>();
  REQUIRE(compute_s > 0);
  // Same job and GPU in both scenarios: the same plan.
  CHECK(predict_json(fabric).at("parts").at("compute").at("s").get<double>() == compute_s);

  for (const auto& s : {plain, fabric}) {
    const auto out = dir / (s.stem().string() + ".h5");
    const auto r = run_command(fleetwatt_binary().string() + " run -q " + s.string() + " -o " + out.string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    fleetwatt::results::ResultReader h5(out);
    REQUIRE(h5.strings("/jobs/state").at(0) == "finished");
    CHECK(h5.doubles("/jobs/compute_s").at(0) == Approx(2 * compute_s).epsilon(1e-6));
    if (s == plain) {
      // Without a fabric the plan runs as predicted: its parts' times, and the epoch's end as checkpoint.
      CHECK(h5.doubles("/jobs/comm_s").at(0) ==
            Approx(2 * parts.at("comm").at("s").get<double>()).epsilon(1e-6));
      CHECK(h5.doubles("/jobs/checkpoint_s").at(0) ==
            Approx(2 * parts.at("checkpoint").at("s").get<double>()).epsilon(1e-6));
    } else {
      // On the fabric the ring of 355 M fp32 gradients crosses the 100 Gb/s (12.5 GB/s) NICs: a step's
      // all-reduce takes t = 2 (16 - 1) / 16 x params x 4 B / 12.5 GB/s, of which the backward pass (2/3 of
      // a step's short GPU work) hides less than the 70 % overlap allows; the 30 % that never hides is a
      // lower bound, and per-hop latencies add under 1 %.
      const double t = 2.0 * 15 / 16 * j.at("params").get<double>() * 4 / 12.5e9;
      const double comm_s = h5.doubles("/jobs/comm_s").at(0);
      CHECK(comm_s > 2 * parts.at("comm").at("s").get<double>());
      CHECK(comm_s >= 2 * 100 * 0.3 * t);
      CHECK(comm_s < 2 * 100 * 0.3 * t * 1.01);
    }
  }
}

TEST_CASE("explicit phases above the GPU's TDP are bad input, named by file, line and column",
          "[cli][limits]") {
  TempDir dir;
  dir.write("jobs.csv",
            "job_id,submit_s,n_gpus,epochs,peak_s,peak_W,valley_s,valley_W\n"
            "1,0,1,1,10,300,1,80\n"
            "2,0,1,1,10,5500,1,80\n");
  const auto s = dir.write("s.toml", R"(
[fleet]
nodes = 1
gpus_per_node = 1
gpu = "h100-sxm"
[workload]
horizon_s = 100
jobs_csv = "jobs.csv"
)");
  const auto out = dir / "o.h5";
  const auto r = run_command(fleetwatt_binary().string() + " run -q " + s.string() + " -o " + out.string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("jobs.csv:3") != std::string::npos);
  CHECK(r.err.find("peak_W") != std::string::npos);
  CHECK(r.err.find("700") != std::string::npos);  // the H100 SXM's TDP
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("a prediction above the GPU's TDP is capped to it, counted and reported once", "[cli][limits]") {
  TempDir dir;
  // A fitted formula far outside its data: 1,067.7 W on a 220 W RTX 3070.
  dir.write("m.toml", R"toml(format = "fleetwatt-sr"
version = 1
[models.peak_W]
target = "peak_W"
features = ["gpus"]
formula = "1067.7 + 0 * gpus"
scaler_mean = [0.0]
scaler_std = [1.0]
[models.peak_s]
target = "peak_s"
features = ["gpus"]
formula = "100 + 0 * gpus"
scaler_mean = [0.0]
scaler_std = [1.0]
)toml");
  const auto s = dir.write("s.toml", R"(
[fleet]
nodes = 1
gpus_per_node = 2
gpu = "rtx3070"
node_base_w = 0
[predictor]
kind = "sr"
path = "m.toml"
[workload]
horizon_s = 1000
[[workload.jobs]]
n_gpus = 1
flops_per_sample = 1e9
params = 1e6
[[workload.jobs]]
n_gpus = 1
flops_per_sample = 1e9
params = 1e6
)");
  const auto out = dir / "o.h5";
  const auto r = run_command(fleetwatt_binary().string() + " run " + s.string() + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("capped predictions") != std::string::npos);
  fleetwatt::results::ResultReader h5(out);
  CHECK(h5.doubles("/summary/capped_predictions").at(0) == 2.0);
  CHECK(h5.doubles("/jobs/peak_W").at(0) == 220.0);
  // 2 jobs x 220 W x 100 s (no valley formula: 0 s).
  CHECK(h5.doubles("/jobs/energy_J").at(0) == Approx(220.0 * 100.0));
}
