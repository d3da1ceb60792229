// The LLM step's newer keys through the command: context parallelism, hybrid sharding, attention kernels,
// asynchronous checkpoints, rank order, tensor-parallel overlap and a model given by its shape. Each is a
// flag of `predict` and a key of a scenario job; a bad value is one located line, exit status 2 and no
// result file; the checkpoint figures are the hand-worked bytes over the hand-worked rates.
#include <algorithm>
#include <catch2/catch.hpp>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {
// Llama 3 70B on 64 H100s: tp 8 x pp 2 x dp 4, ZeRO 1, 64 sequences of 8192 tokens per step.
const std::string kLlama =
    " predict --json --model llama3_70b --gpu h100-sxm --gpus 64 --tp 8 --pp 2 --zero 1 --batch 64 "
    "--seq 8192 --samples 6400 --precision bf16 --stack optimized";
// Its shape from the Llama 3 report, table 3.
const std::string kShape = "layers=80,hidden=8192,heads=64,kv_heads=8,ffn_hidden=28672,vocab=128256";

// A scenario of that job with one more line (line 18 of the file).
std::string scenario_with(const std::string& extra) {
  return std::string(R"([fleet]
gpu = "h100-sxm"
nodes = 8
gpus_per_node = 8
[workload]
horizon_s = 600
[[workload.jobs]]
model = "llama3_70b"
n_gpus = 64
tp = 8
pp = 2
global_batch = 64
seq = 8192
dataset_samples = 6400
precision = "bf16"
stack = "optimized"
zero = 1
)") + extra +
         "\n";
}
}  // namespace

TEST_CASE("predict takes context parallelism, sharding, attention, checkpoint, rank order and shape as flags",
          "[cli][predict][llm]") {
  const auto help = run_command(fleetwatt_command() + " predict --help");
  REQUIRE(help.exit_code == 0);
  for (const char* opt : {"--cp", "--fsdp-shard-size", "--attention", "--checkpoint", "--rank-order",
                          "--tp-comm-overlap", "--model-shape"})
    CHECK(help.out.find(opt) != std::string::npos);
  CHECK(help.out.find("flash2") != std::string::npos);
}

TEST_CASE("a model given by its shape predicts as the zoo model of that shape", "[cli][predict][llm]") {
  const auto zoo = run_command(fleetwatt_command() + kLlama);
  INFO(zoo.err);
  REQUIRE(zoo.exit_code == 0);
  std::string by_shape = kLlama;
  by_shape.replace(by_shape.find("--model llama3_70b"), 18, "--model shaped --model-shape " + kShape);
  const auto shaped = run_command(fleetwatt_command() + by_shape);
  INFO(shaped.err);
  REQUIRE(shaped.exit_code == 0);
  for (const char* key : {"params", "step_s", "epoch_s", "memory_per_gpu_bytes", "gemm_s", "attention_s"})
    CHECK(json_number(shaped.out, key) == json_number(zoo.out, key));
}

TEST_CASE("an asynchronous checkpoint stalls the GPUs only for the copy to host memory",
          "[cli][predict][llm]") {
  const auto sync = run_command(fleetwatt_command() + kLlama + " --checkpoint sync");
  const auto async = run_command(fleetwatt_command() + kLlama + " --checkpoint async");
  INFO(sync.err << async.err);
  REQUIRE(sync.exit_code == 0);
  REQUIRE(async.exit_code == 0);
  // 12 bytes per parameter (fp32 weights and Adam's two moments) of 70,553,706,496 parameters; under ZeRO 1
  // all 64 GPUs write their shard, at the default 1 GB/s each (no [topology]): 846.6 GB / 64 GB/s.
  const double bytes = 12.0 * 70553706496.0;
  CHECK(json_number(sync.out, "checkpoint_bytes") == Approx(bytes));
  CHECK(json_number(sync.out, "checkpoint_writers") == 64);
  CHECK(json_number(sync.out, "checkpoint_write_s") == Approx(bytes / 64e9).epsilon(1e-12));
  CHECK(json_number(sync.out, "checkpoint_s") == json_number(sync.out, "checkpoint_write_s"));
  // Asynchronously each GPU waits for its 13.2 GB shard over its PCIe link (H100 SXM5: PCIe 5.0 x16).
  const double pcie = fleetwatt::models::gpu_preset("h100-sxm").pcie_bw_Bps;
  CHECK(json_number(async.out, "checkpoint_s") == Approx(bytes / 64.0 / pcie).epsilon(1e-12));
  CHECK(json_number(async.out, "checkpoint_write_s") == json_number(sync.out, "checkpoint_write_s"));
  // The step is the same; the epoch is shorter by the write less the copy.
  CHECK(json_number(async.out, "step_s") == json_number(sync.out, "step_s"));
  CHECK(json_number(sync.out, "epoch_s") - json_number(async.out, "epoch_s") ==
        Approx(bytes / 64e9 - bytes / 64.0 / pcie).epsilon(1e-9));
}

TEST_CASE("context parallelism halves a GPU's activations and adds the ring's exposed traffic",
          "[cli][predict][llm]") {
  // 16,384 tokens: tp 8 x pp 2 on 128 GPUs against tp 8 x cp 2 x pp 2 on 256, both dp 8.
  const std::string base =
      fleetwatt_command() +
      " predict --json --model llama3_70b --gpu h100-sxm --tp 8 --pp 2 --zero 1 --batch 64 "
      "--seq 16384 --samples 640 --precision bf16 --stack optimized";
  const auto one = run_command(base + " --gpus 128");
  const auto two = run_command(base + " --gpus 256 --cp 2");
  INFO(one.err << two.err);
  REQUIRE(one.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  CHECK(json_number(one.out, "dp") == 8);
  CHECK(json_number(two.out, "dp") == 8);
  CHECK(json_number(two.out, "cp") == 2);
  // Fused attention keeps no s x s scores: every activation is linear in the tokens a GPU holds.
  CHECK(json_number(two.out, "memory_activations_bytes") ==
        Approx(json_number(one.out, "memory_activations_bytes") / 2.0).epsilon(1e-12));
  // The ring's K/V sends: none without context parallelism; with it, traffic the attention hides here.
  CHECK(json_number(one.out, "cp_comm_total_s") == 0.0);
  CHECK(json_number(two.out, "cp_comm_total_s") > 0.0);
  CHECK(json_number(two.out, "cp_comm_s") <= json_number(two.out, "cp_comm_total_s"));
  // Half the tokens per GPU: the step is well under the single-context one, yet above half of it.
  CHECK(json_number(two.out, "step_s") < 0.6 * json_number(one.out, "step_s"));
  CHECK(json_number(two.out, "step_s") > 0.5 * json_number(one.out, "step_s"));
}

TEST_CASE("eager attention is slower and holds the scores, flash2 sits between", "[cli][predict][llm]") {
  // 2,048 tokens: at 8,192 eager attention's s x s scores would not fit (221 GiB of activations per GPU).
  std::string job = kLlama;
  job.replace(job.find("--seq 8192"), 10, "--seq 2048");
  const auto fused = run_command(fleetwatt_command() + job + " --attention fused");
  const auto flash2 = run_command(fleetwatt_command() + job + " --attention flash2");
  const auto eager = run_command(fleetwatt_command() + job + " --attention eager");
  REQUIRE(fused.exit_code == 0);
  REQUIRE(flash2.exit_code == 0);
  INFO(eager.err);
  REQUIRE(eager.exit_code == 0);
  CHECK(json_number(fused.out, "attention_s") < json_number(flash2.out, "attention_s"));
  CHECK(json_number(flash2.out, "attention_s") < json_number(eager.out, "attention_s"));
  CHECK(json_number(fused.out, "gemm_s") == json_number(eager.out, "gemm_s"));
  CHECK(json_number(fused.out, "memory_activations_bytes") ==
        json_number(flash2.out, "memory_activations_bytes"));
  // Korthikanti et al. 2022 eq. 1 per layer: 34 s b h + 5 a s^2 b bytes against 34 s b h fused, with tp 8
  // spreading both (sequence parallelism) and layers 40 per stage, micro-batches in flight alike.
  const double sbh = 2048.0 * 8192.0, as2 = 64.0 * 2048.0 * 2048.0;
  CHECK(json_number(eager.out, "memory_activations_bytes") /
            json_number(fused.out, "memory_activations_bytes") ==
        Approx((34.0 * sbh + 5.0 * as2) / (34.0 * sbh)).epsilon(1e-9));
}

TEST_CASE("bad values of the LLM keys are one located line, exit 2 and no result file",
          "[cli][run][llm][bad-input]") {
  struct Case {
    std::string extra, key, why;
  };
  const std::vector<Case> cases = {
      {"cp = 3", "cp", "n_gpus 64 is not a multiple of tp x cp x pp = 8 x 3 x 2"},
      {"cp = 0", "cp", "must be positive"},
      {"fsdp_shard_size = 2", "fsdp_shard_size", "it needs zero = 3"},
      {"attention = \"bogus\"", "attention", "unknown attention 'bogus' (known: fused, flash2, eager)"},
      {"checkpoint = \"maybe\"", "checkpoint", "unknown checkpoint 'maybe' (known: sync, async)"},
      {"rank_order = \"dp-tp\"", "rank_order", "unknown rank_order 'dp-tp'"},
      {"tp_comm_overlap = 3", "tp_comm_overlap", "expected true or false"},
  };
  for (const auto& c : cases) {
    INFO(c.extra);
    TempDir dir;
    const auto file = dir.write("s.toml", scenario_with(c.extra));
    const auto out = dir.path() / "out.h5";
    const auto r = run_command(fleetwatt_command() + " run " + file.string() + " -o " + out.string());
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find("s.toml:18:1: workload.jobs[0]." + c.key + ": ") != std::string::npos);
    CHECK(r.err.find(c.why) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));
  }
  // cp that fits the GPUs but not the sequence (48 GPUs), and a shard group not dividing dp (ZeRO 3).
  const struct {
    std::string from, to, extra, key, why;
  } edits[] = {
      {"n_gpus = 64", "n_gpus = 48", "cp = 3", "cp", "does not divide the 8192-token sequence into 2 x 3"},
      {"zero = 1", "zero = 3", "fsdp_shard_size = 3", "fsdp_shard_size",
       "fsdp_shard_size 3 does not divide the data-parallel degree 4"},
  };
  for (const auto& e : edits) {
    INFO(e.extra);
    TempDir dir;
    std::string text = scenario_with(e.extra);
    text.replace(text.find(e.from), e.from.size(), e.to);
    const auto file = dir.write("s.toml", text);
    const auto r = run_command(fleetwatt_command() + " run " + file.string() + " -o " +
                               (dir.path() / "out.h5").string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("s.toml:18:1: workload.jobs[0]." + e.key + ": ") != std::string::npos);
    CHECK(r.err.find(e.why) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir.path() / "out.h5"));
  }
  // An unknown GPU: located at [fleet] gpu.
  {
    TempDir dir;
    std::string text = scenario_with("");
    text.replace(text.find("gpu = \"h100-sxm\""), 16, "gpu = \"h900\"");
    const auto file = dir.write("s.toml", text);
    const auto out = dir.path() / "out.h5";
    const auto r = run_command(fleetwatt_command() + " run " + file.string() + " -o " + out.string());
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find("s.toml:2:1: fleet.gpu: ") != std::string::npos);
    CHECK(r.err.find("h900") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));
  }
  // A model by its shape whose heads do not divide the hidden width: located at the heads key.
  TempDir dir;
  std::string text = scenario_with("");
  text.replace(text.find("model = \"llama3_70b\""), 20,
               "layers = 80\nhidden = 8192\nheads = 60\nkv_heads = 8\nffn_hidden = 28672\nvocab = 128256");
  const auto file = dir.write("s.toml", text);
  const auto r =
      run_command(fleetwatt_command() + " run " + file.string() + " -o " + (dir.path() / "out.h5").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("s.toml:10:1: workload.jobs[0].heads: 60 heads do not divide hidden 8192") !=
        std::string::npos);
}

TEST_CASE("bad LLM flags on the command line exit 2 naming the flag", "[cli][predict][llm][bad-input]") {
  const std::string base = fleetwatt_command() +
                           " predict --model llama3_70b --gpu h100-sxm --batch 64 --seq 8192 --samples 6400 "
                           "--precision bf16 --stack optimized --tp 8";
  const struct {
    std::string args, said;
  } cases[] = {
      {" --gpus 48 --pp 2 --cp 3", "--cp: cp 3 does not divide the 8192-token sequence"},
      {" --gpus 64 --pp 2 --zero 3 --fsdp-shard-size 3",
       "--fsdp-shard-size: fsdp_shard_size 3 does not divide"},
      {" --gpus 64 --pp 2 --fsdp-shard-size 2", "--fsdp-shard-size: fsdp_shard_size 2 shards ZeRO-3"},
      {" --gpus 64 --pp 2 --attention sparse", "--attention: 'sparse' is not one of fused, flash2, eager"},
      {" --gpus 64 --pp 2 --checkpoint maybe", "--checkpoint: 'maybe' is not one of sync, async"},
      {" --gpus 64 --pp 2 --rank-order dp-tp", "--rank-order: 'dp-tp' is not one of"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const auto r = run_command(base + c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(c.said) != std::string::npos);
  }
  const std::string shaped = fleetwatt_command() +
                             " predict --model shaped --gpu h100-sxm --gpus 64 --tp 8 --pp 2 --batch 64 "
                             "--seq 8192 --samples 6400 --precision bf16 --model-shape ";
  const auto heads = run_command(shaped + "layers=80,hidden=8192,heads=60,kv_heads=8");
  CHECK(heads.exit_code == 2);
  CHECK(heads.err.find("--model-shape: heads: 60 heads do not divide hidden 8192") != std::string::npos);
  const auto gpu =
      run_command(fleetwatt_command() +
                  " predict --model llama3_8b --gpu h900 --gpus 8 --batch 8 --seq 8192 --samples 8");
  CHECK(gpu.exit_code == 2);
  CHECK(gpu.err.find("--gpu") != std::string::npos);
  CHECK(gpu.err.find("h900") != std::string::npos);
  const auto key = run_command(shaped + "layers=80,hidden=8192,heads=64,ffn=28672");
  CHECK(key.exit_code == 2);
  CHECK(key.err.find("--model-shape: unknown key 'ffn'") != std::string::npos);
}
