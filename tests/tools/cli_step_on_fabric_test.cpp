// One step, two places: a 3D-parallel job's step as `fleetwatt predict --scenario` plans it and as `fleetwatt
// run` times it on the scenario's fabric. On an uncongested fabric they agree (the campus and a small
// scenario worked by hand); under congestion only the parts the fabric owns (data-parallel rings, pipeline
// and context-parallel sends) grow; the checkpoint takes at least its bytes over the storage servers.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {

nlohmann::json predict(const std::string& scenario, int job) {
  const auto p = run_command(fleetwatt_command() + " predict --json --scenario " + scenario + " --job " +
                             std::to_string(job));
  INFO(p.err);
  REQUIRE(p.exit_code == 0);
  return nlohmann::json::parse(p.out);
}

/// 4 servers of 8 H100 on a leaf-spine with a 400 Gb/s NIC per GPU (`per_leaf` servers a leaf, its spine
/// links oversubscribed `oversubscription` to 1), storage of 2 servers at 100 Gb/s = 25 GB/s; `jobs` follows.
std::string fabric_scenario(double oversubscription, const std::string& jobs, int per_leaf = 2) {
  return "name = \"fabric\"\nseed = 3\n[fleet]\nnodes = 4\ngpus_per_node = 8\ngpu = \"h100-sxm\"\n"
         "[facility]\npue = 1.2\n[predictor]\nkind = \"datasheet\"\nepoch_end_s = 1.0\n"
         "[topology]\nkind = \"leaf_spine\"\nhosts_per_leaf = " +
         std::to_string(per_leaf) + "\nspines = 2\noversubscription = " + std::to_string(oversubscription) +
         "\nnics_per_node = 8\nnic_gbps = 400\nstorage_servers = 2\nstorage_gbps = 100\n"
         "[workload]\nhorizon_s = 600\n" +
         jobs + "[output]\npath = \"f.h5\"\nfacility_interval_s = 1\nnode_interval_s = 10\n";
}

/// Llama 3 8B, tp 8 (a server each), pp 2, dp 2: 32 GPUs, stage boundaries and data-parallel rings both
/// cross servers (tp-cp-dp-pp: the data-parallel pairs are servers 0-1 and 2-3, the stages 0-2 and 1-3).
const char* const kJob =
    "[[workload.jobs]]\nid = 1\nmodel = \"llama3_8b\"\nprecision = \"bf16\"\nstack = \"optimized\"\n"
    "tp = 8\npp = 2\ndp = 2\nzero = 1\nseq = 4096\nglobal_batch = 64\ndataset_samples = 1280\n"
    "waveform = \"steps\"\ncheckpoint_every_steps = 10\n";

/// `fleetwatt run` of `scenario` into dir/name, its result file open.
fleetwatt::results::ResultReader run(const TempDir& dir, const std::filesystem::path& scenario,
                                     const std::string& name) {
  const auto r =
      run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + (dir / name).string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return fleetwatt::results::ResultReader(dir / name);
}

}  // namespace

TEST_CASE("A small fabric by hand: the run's step is the predicted one, part by part",
          "[cli][steps][fabric]") {
  TempDir dir;
  const auto scenario = dir.write("s.toml", fabric_scenario(1.0, kJob));
  const auto p = predict(scenario.string(), 1);
  // The predictor takes the fabric's links: 8 x 400 Gb/s NICs over 8 GPUs = 50 GB/s each, and the storage
  // servers' 2 x 100 Gb/s = 25 GB/s.
  const double inter = 400e9 / 8.0;
  // Data parallel: each of the 8 x 2 (tp x pp) positions reduces over its 2 replicas on two servers: the
  // GPU's shard of 8,030,261,248 / 16 parameters, 2 bytes each, reduce-scattered and all-gathered (2 ring
  // passes of 1/2 of it), one rail per server: 2 x 1/2 x bytes / 50 GB/s + 2 x 1 x 5 us.
  const double shard = 8030261248.0 / 16.0 * 2.0;
  const double dp_total = 2.0 * 0.5 * shard / inter + 2.0 * 5e-6;
  CHECK(p.at("dp_comm_total_s").get<double>() == Approx(dp_total).epsilon(1e-9));
  // Pipeline: 2 (pp x vp - 1) = 2 sends of the boundary's b s h / tp = 1 x 4096 x 4096 x 2 / 8 bytes.
  CHECK(p.at("pp_comm_s").get<double>() == Approx(2.0 * (4096.0 * 4096.0 * 2.0 / 8.0 / inter + 5e-6)));
  // The checkpoint: 8,030,261,248 x 12 bytes over the storage's 25 GB/s.
  CHECK(p.at("checkpoint_write_s").get<double>() == Approx(8030261248.0 * 12.0 / 25e9));

  const auto out = dir / "f.h5";
  const auto r = run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  fleetwatt::results::ResultReader h5(out);
  // The uncongested fabric gives the planned step: the rings' and sends' flows at the NICs' rate; the
  // fabric's link latencies (about 1 us a hop) are the only difference.
  const double step_s = h5.doubles("/jobs/step_s").at(0);
  CHECK(step_s == Approx(p.at("step_s").get<double>()).epsilon(1e-3));
  // Each part as planned, over the run's steps (compute and communication of whole checkpoint intervals).
  const double steps = h5.doubles("/jobs/compute_s").at(0) / p.at("compute_s").get<double>();
  CHECK(h5.doubles("/jobs/tp_comm_s").at(0) == Approx(steps * p.at("tp_comm_s").get<double>()).epsilon(1e-6));
  CHECK(h5.doubles("/jobs/dp_comm_s").at(0) == Approx(steps * p.at("dp_comm_s").get<double>()).epsilon(1e-3));
  // The pipeline's 4 MB sends: their bandwidth as planned, and the route's hop latencies (PCIe, NIC, leaf,
  // spine: tens of microseconds) on top of the planned 5 us each, 2 sends a step.
  const double pp_extra = h5.doubles("/jobs/pp_comm_s").at(0) - steps * p.at("pp_comm_s").get<double>();
  CHECK(pp_extra >= 0.0);
  CHECK(pp_extra / (2.0 * steps) < 40e-6);
  // The checkpoint takes at least its bytes over the storage bandwidth (plus the fixed 1 s).
  // (the integer nanosecond clock rounds it to within 1 ns)
  CHECK(h5.doubles("/jobs/valley_s").at(0) >= 1.0 + 8030261248.0 * 12.0 / 25e9 - 1e-9);
}

TEST_CASE("An asynchronous checkpoint: the GPUs wait for the copy, the write runs beside the steps",
          "[cli][steps][fabric]") {
  TempDir dir;
  const auto sync = dir.write("sync.toml", fabric_scenario(1.0, kJob));
  const auto async =
      dir.write("async.toml", fabric_scenario(1.0, std::string(kJob) + "checkpoint = \"async\"\n"));
  const auto p = predict(async.string(), 1);
  // 8,030,261,248 x 12 bytes: ZeRO 1, so each of the 32 GPUs copies its 1/32 to host memory over PCIe
  // (the fabric's server PCIe: the H100's 64 GB/s), then writes it to the storage servers' 25 GB/s.
  const double bytes = 8030261248.0 * 12.0, copy = bytes / 32.0 / 64e9, write = bytes / 25e9;
  CHECK(p.at("checkpoint_s").get<double>() == Approx(copy));
  CHECK(p.at("checkpoint_write_s").get<double>() == Approx(write));
  fleetwatt::results::ResultReader a = run(dir, sync, "sync.h5"), b = run(dir, async, "async.h5");
  // 20 steps, a checkpoint every 10: two, each with the fixed 1 s. Synchronously each waits for the write;
  // asynchronously the first only for the copy (its write, 3.85 s, ends inside the next 10 steps of about
  // 0.94 s), the last for the copy and the write (training finalises it before the GPUs go).
  CHECK(a.doubles("/jobs/checkpoint_s").at(0) == Approx(2.0 * (1.0 + write)).epsilon(1e-6));
  CHECK(b.doubles("/jobs/checkpoint_s").at(0) == Approx(2.0 * (1.0 + copy) + write).epsilon(1e-6));
  CHECK(b.doubles("/jobs/compute_s").at(0) == Approx(a.doubles("/jobs/compute_s").at(0)));
  CHECK(a.doubles("/jobs/end_s").at(0) - b.doubles("/jobs/end_s").at(0) ==
        Approx(write - 2.0 * copy).epsilon(1e-6));
  // predict's job time counts the last write as the run does: its one epoch (the 20 steps and a
  // checkpoint) and the write is the run less its start-up (reading the checkpoint back) and the middle
  // checkpoint (the fabric's hop latencies apart).
  const double run_s = b.doubles("/jobs/end_s").at(0) - b.doubles("/jobs/startup_s").at(0) - (1.0 + copy);
  CHECK(p.at("total_s").get<double>() == Approx(run_s).epsilon(1e-3));
}

TEST_CASE("Under congestion only the fabric's parts grow", "[cli][steps][fabric]") {
  TempDir dir;
  // Two jobs of 16 GPUs each (tp 8, dp 2: their replicas on two servers), a server a leaf, on spines
  // oversubscribed 8:1: their data-parallel rings cross the leaves' thin uplinks.
  const std::string jobs =
      std::string(
          "[[workload.jobs]]\nid = 1\nmodel = \"llama3_8b\"\nprecision = \"bf16\"\nstack = \"optimized\"\n"
          "tp = 8\ndp = 2\nzero = 1\nseq = 4096\nglobal_batch = 64\ndataset_samples = 640\nwaveform = "
          "\"steps\"\n") +
      "[[workload.jobs]]\nid = 2\nmodel = \"llama3_8b\"\nprecision = \"bf16\"\nstack = \"optimized\"\n"
      "tp = 8\ndp = 2\nzero = 1\nseq = 4096\nglobal_batch = 64\ndataset_samples = 640\nwaveform = "
      "\"steps\"\n";
  const auto free = dir.write("free.toml", fabric_scenario(1.0, jobs, 1));
  const auto busy = dir.write("busy.toml", fabric_scenario(8.0, jobs, 1));
  fleetwatt::results::ResultReader a = run(dir, free, "a.h5"), b = run(dir, busy, "b.h5");
  for (std::size_t j = 0; j < 2; ++j) {
    INFO("job " << j + 1);
    CHECK(b.doubles("/jobs/compute_s").at(j) == Approx(a.doubles("/jobs/compute_s").at(j)));
    CHECK(b.doubles("/jobs/tp_comm_s").at(j) == Approx(a.doubles("/jobs/tp_comm_s").at(j)));
    CHECK(b.doubles("/jobs/dp_comm_s").at(j) > 1.5 * a.doubles("/jobs/dp_comm_s").at(j));
  }
}

TEST_CASE("llm-campus: the pretraining job's run step is the predicted one", "[cli][steps][campus]") {
  TempDir dir;
  const auto scenario = source_dir() / "examples/scenarios/llm-campus.toml";
  const auto p = predict(scenario.string(), 1);
  const auto out = dir / "campus.h5";
  const auto r = run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  fleetwatt::results::ResultReader h5(out);
  // Done when: within 5 % (the fabric's hop latencies are what is left).
  CHECK(h5.doubles("/jobs/step_s").at(0) == Approx(p.at("step_s").get<double>()).epsilon(0.05));
  // Its checkpoint takes at least the job's checkpoint bytes over the storage servers' bandwidth.
  const double bytes = p.at("checkpoint_bytes").get<double>();
  CHECK(bytes == Approx(70553706496.0 * 12.0));
  CHECK(h5.doubles("/jobs/valley_s").at(0) >= bytes / 100e9);
}
