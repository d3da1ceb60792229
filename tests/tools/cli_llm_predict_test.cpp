// `fleetwatt predict` with a 3D-parallel LLM job: the flags and the scenario keys give one prediction, the
// memory per GPU in the JSON is the hand-worked ZeRO + Korthikanti figure, and a job that cannot fit (or an
// inconsistent split) exits 2 naming the problem.
#include <catch2/catch.hpp>
#include <regex>

#include "fleetwatt/models/hardware/collectives.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;

namespace {
// GPT-3 175B on 512 H100s: tp 8, pp 8, dp 8, ZeRO 1, selective recomputation, micro-batch 1, global batch
// 1536 sequences of 2048 tokens, 1000 steps per epoch.
const std::string kGpt3 =
    " predict --json --model gpt3_175b --gpu h100-sxm --gpus 512 --tp 8 --pp 8 --zero 1 --micro-batch 1 "
    "--recompute selective --batch 1536 --seq 2048 --samples 1536000 --precision bf16";
}  // namespace

TEST_CASE("predict takes the parallel split as flags", "[cli][predict][llm]") {
  const auto help = run_command(fleetwatt_command() + " predict --help");
  REQUIRE(help.exit_code == 0);
  for (const char* opt : {"--tp", "--pp", "--vp", "--first-stage-layers", "--last-stage-layers", "--ep",
                          "--zero", "--micro-batch", "--recompute"})
    CHECK(help.out.find(opt) != std::string::npos);
}

TEST_CASE("predict's memory per GPU of GPT-3 175B is the hand-worked figure", "[cli][predict][llm]") {
  const auto r = run_command(fleetwatt_command() + kGpt3);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string& j = r.out;
  // Shard P = 174,604,259,328 / 64 = 2,728,191,552 parameters: weights and gradients 2 P bytes each,
  // optimizer 12 P / 8 (ZeRO 1 over dp 8); activations 12 layers x 8 micro-batches in flight x 34 s b h / t
  // = 96 x 106,954,752 bytes. Total 25,272,709,728 bytes.
  CHECK(json_number(j, "memory_weights_bytes") == Approx(5456383104.0));
  CHECK(json_number(j, "memory_gradients_bytes") == Approx(5456383104.0));
  CHECK(json_number(j, "memory_optimizer_bytes") == Approx(4092287328.0));
  CHECK(json_number(j, "memory_activations_bytes") == Approx(10267656192.0));
  CHECK(json_number(j, "memory_per_gpu_bytes") == Approx(25272709728.0));
  CHECK(json_number(j, "dp") == 8);
  CHECK(json_number(j, "steps_per_epoch") == 1000);
  // 6 N + 12 L s d = 6 x 174,604,259,328 + 12 x 96 x 2048 x 12288.
  CHECK(json_number(j, "training_flops_per_token") == 1076616585216.0);
  // The epoch's steps (compute, exposed communication, loading and the pipeline bubble) are all of it but
  // the checkpoint valley.
  CHECK(json_number(j, "steps_per_epoch") * json_number(j, "step_s") ==
        Approx(json_number(j, "epoch_s") - json_number(j, "valley_s")).epsilon(1e-9));
}

TEST_CASE("a scenario job's parallel keys predict as the flags do", "[cli][predict][llm]") {
  TempDir dir;
  const auto file = dir.write("s.toml", R"([fleet]
gpu = "h100-sxm"
nodes = 64
gpus_per_node = 8
[[workload.jobs]]
model = "gpt3_175b"
tp = 8
pp = 8
vp = 2
dp = 8
zero = 1
micro_batch = 1
recompute = "selective"
seq = 2048
global_batch_tokens = 3145728
dataset_samples = 1536000
precision = "bf16"
)");
  const auto from_file = run_command(fleetwatt_command() + " predict --json --scenario " + file.string());
  INFO(from_file.err);
  REQUIRE(from_file.exit_code == 0);
  const auto flags = run_command(fleetwatt_command() + kGpt3 + " --vp 2");
  REQUIRE(flags.exit_code == 0);
  CHECK(json_number(from_file.out, "memory_per_gpu_bytes") == json_number(flags.out, "memory_per_gpu_bytes"));
  CHECK(json_number(from_file.out, "epoch_s") == json_number(flags.out, "epoch_s"));
  CHECK(json_number(from_file.out, "vp") == 2);
  // About 7 / (2 x 192 + 7): exactly so for stages of equal work; the last one also runs the output head.
  CHECK(json_number(from_file.out, "bubble_fraction") == Approx(7.0 / (2.0 * 192.0 + 7.0)).epsilon(0.03));
  CHECK(json_number(from_file.out, "n_gpus") == 512);
}

TEST_CASE("an LLM job that cannot fit is refused with its need and the GPU's memory", "[cli][predict][llm]") {
  // Llama 2 70B data parallel on 8 H100s: 16 bytes x 68,976,648,192 = 1,027.8 GiB of state alone.
  const auto r = run_command(fleetwatt_command() +
                             " predict --model llama2_70b --gpu h100-sxm --gpus 8 --batch 8 --seq 4096 "
                             "--samples 1000 --precision bf16");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("GiB per GPU") != std::string::npos);
  CHECK(r.err.find("h100-sxm has 80 GiB") != std::string::npos);
  // From a scenario the refusal names the file and the job's line.
  TempDir dir;
  const auto file = dir.write("big.toml", R"([fleet]
gpu = "h100-sxm"
gpus_per_node = 8
[[workload.jobs]]
model = "llama2_70b"
n_gpus = 8
tp = 8
global_batch = 8
dataset_samples = 1000
precision = "bf16"
)");
  const auto s = run_command(fleetwatt_command() + " predict --scenario " + file.string());
  CHECK(s.exit_code == 2);
  CHECK(s.err.find("big.toml:4:1") != std::string::npos);
  CHECK(s.err.find("h100-sxm has 80 GiB") != std::string::npos);
}

TEST_CASE("an inconsistent split on the command line exits 2", "[cli][predict][llm][bad-input]") {
  const std::string base =
      fleetwatt_command() +
      " predict --model mixtral_8x7b --gpu h100-sxm --batch 64 --samples 1000 --precision bf16";
  CHECK(run_command(base + " --gpus 12 --tp 8").exit_code == 2);
  const auto ep = run_command(base + " --gpus 16 --tp 2 --ep 3");
  CHECK(ep.exit_code == 2);
  CHECK(ep.err.find("--ep") != std::string::npos);
  CHECK(run_command(base + " --gpus 8 --recompute some").exit_code == 2);
  CHECK(run_command(base + " --gpus 8 --micro-batch 3").exit_code == 2);
  CHECK(run_command(base + " --gpus 8 --zero 4").exit_code == 2);
  const auto vp = run_command(base + " --gpus 16 --tp 8 --vp 2");
  CHECK(vp.exit_code == 2);
  CHECK(vp.err.find("--vp: vp 2 interleaves pipeline stages: it needs pp of at least 2") !=
        std::string::npos);
  // Mixtral 8x7B has 32 layers: 8 stages x 5 chunks is more chunks than layers.
  const auto chunks = run_command(base + " --gpus 16 --pp 8 --vp 5");
  CHECK(chunks.exit_code == 2);
  CHECK(chunks.err.find("pp x vp = 8 x 5 chunks exceed mixtral_8x7b's 32 layers") != std::string::npos);
  const auto first = run_command(base + " --gpus 16 --tp 8 --first-stage-layers 3");
  CHECK(first.exit_code == 2);
  CHECK(first.err.find("--first-stage-layers: first_stage_layers 3 sets a pipeline stage") !=
        std::string::npos);
}

TEST_CASE("predict breaks a 3D-parallel step into compute, TP, PP, DP, bubble and MFU",
          "[cli][predict][llm]") {
  const auto r = run_command(fleetwatt_command() + kGpt3);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string& j = r.out;
  // dp 8: 1536 / 8 = 192 micro-batches of 1 per replica; 1F1B bubble (8 - 1) / (192 + 7) = 7 / 199 for
  // stages of equal work (the last stage, which also runs the output head, is 1.7 % slower: a little less).
  CHECK(json_number(j, "micro_batches") == 192);
  CHECK(json_number(j, "bubble_fraction") == Approx(7.0 / 199.0).epsilon(0.03));
  CHECK(json_number(j, "bubble_fraction") < 7.0 / 199.0);
  // Tensor parallel inside the node (the eager stack: no overlap): b s h x 2 bytes = 2048 x 12288 x 2 =
  // 50,331,648 B per all-reduce volume at vidur's measured NCCL figures for the H100 (intercept alpha, bus
  // bandwidth): alpha + 1.75 x 50,331,648 / bus; 4 per layer (selective recomputation reruns no GEMM), 96 /
  // 8 = 12 layers, 192 micro-batches: 9,216 of them.
  const auto link = fleetwatt::models::all_reduce_link(fleetwatt::models::default_collectives(),
                                                       fleetwatt::models::gpu_preset("h100-sxm"));
  CHECK(json_number(j, "tp_comm_s") == Approx(9216.0 * (link.alpha_s + 1.75 * 50331648.0 / link.bus_Bps)));
  // Pipeline: 512 GPUs span nodes; 50,331,648 / 8 B per TP GPU over the PCIe figure (64 GB/s) + 5 us, at 7
  // boundaries forward and backward: 14 x (98.304 + 5) us = 1.4463 ms.
  CHECK(json_number(j, "pp_comm_s") == Approx(14.0 * (50331648.0 / 8.0 / 64e9 + 5e-6)));
  CHECK(json_number(j, "dp_comm_s") >= 0.0);
  CHECK(json_number(j, "step_s") ==
        Approx(json_number(j, "compute_s") + json_number(j, "bubble_s") + json_number(j, "tp_comm_s") +
               json_number(j, "pp_comm_s") + json_number(j, "dp_comm_s")));
  // MFU = 1536 x 2048 x 1,076,616,585,216 model FLOPs / (step x 512 GPUs x 989.4 TFLOP/s BF16).
  const double flops = 1536.0 * 2048.0 * 1076616585216.0;
  CHECK(json_number(j, "model_flops_per_step") == Approx(flops));
  CHECK(json_number(j, "mfu") == Approx(flops / (json_number(j, "step_s") * 512.0 * 989.4e12)));
  // The plan's bubble part: 1000 steps x bubble_s at the resident floor.
  const auto at = j.find("\"bubble\": {");
  REQUIRE(at != std::string::npos);
  CHECK(json_number(j, "s", at) == Approx(1000.0 * json_number(j, "bubble_s")));
  CHECK(json_number(j, "W", at) == Approx(json_number(j, "floor_W")));
  // Interleaved over 3 virtual stages: the bubble is 7 / (3 x 192 + 7), a third of the 1F1B one in time, and
  // the fill and drain cross 8 x 3 - 1 = 23 chunk boundaries.
  const auto v = run_command(fleetwatt_command() + kGpt3 + " --vp 3");
  REQUIRE(v.exit_code == 0);
  CHECK(json_number(v.out, "vp") == 3);
  CHECK(json_number(j, "vp") == 1);
  CHECK(json_number(j, "first_stage_layers") == 0);
  CHECK(json_number(j, "last_stage_layers") == 0);
  CHECK(json_number(v.out, "bubble_fraction") == Approx(7.0 / (3.0 * 192.0 + 7.0)).epsilon(0.03));
  CHECK(json_number(v.out, "bubble_s") == Approx(json_number(j, "bubble_s") / 3.0));
  CHECK(json_number(v.out, "pp_comm_s") == Approx(46.0 * (50331648.0 / 8.0 / 64e9 + 5e-6)));
  CHECK(json_number(v.out, "compute_s") == json_number(j, "compute_s"));
  // The text output names every part.
  const auto text = run_command(fleetwatt_command() + std::regex_replace(kGpt3, std::regex(" --json"), ""));
  REQUIRE(text.exit_code == 0);
  for (const char* part : {"TP comm", "PP comm", "DP comm exposed", "bubble", "mfu"})
    CHECK(text.out.find(part) != std::string::npos);
}

TEST_CASE("[predictor] internode_gbytes_per_s and gpus_per_node set the 3D-parallel step's links",
          "[cli][predict][llm]") {
  TempDir dir;
  const std::string job = R"(
[[workload.jobs]]
model = "gpt3_175b"
tp = 8
pp = 8
dp = 8
zero = 1
micro_batch = 1
recompute = "selective"
seq = 2048
global_batch = 1536
dataset_samples = 1536000
precision = "bf16"
)";
  const std::string fleet = "[fleet]\ngpu = \"h100-sxm\"\nnodes = 64\ngpus_per_node = 8\n";
  const auto slow = dir.write(
      "slow.toml", fleet + "[predictor]\nkind = \"datasheet\"\ninternode_gbytes_per_s = 25\n" + job);
  const auto r = run_command(fleetwatt_command() + " predict --json --scenario " + slow.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // PP: 14 sends of 50,331,648 / 8 B at 25 GB/s + 5 us each = 14 x 256.66 us = 3.5932 ms (64 GB/s by
  // default: 1.4463 ms).
  CHECK(json_number(r.out, "pp_comm_s") == Approx(14.0 * (50331648.0 / 8.0 / 25e9 + 5e-6)));
  // gpus_per_node 4 puts the 8-way tensor-parallel group across nodes: its all-reduces run at 25 GB/s.
  const auto split = dir.write(
      "split.toml",
      fleet + "[predictor]\nkind = \"datasheet\"\ninternode_gbytes_per_s = 25\ngpus_per_node = 4\n" + job);
  const auto s = run_command(fleetwatt_command() + " predict --json --scenario " + split.string());
  REQUIRE(s.exit_code == 0);
  CHECK(json_number(s.out, "tp_comm_s") == Approx(9216.0 * (1.75 * 50331648.0 / 25e9 + 14.0 * 5e-6)));
  // A fraction of a GPU per node is refused, naming the key.
  const auto bad =
      dir.write("bad.toml", fleet + "[predictor]\nkind = \"datasheet\"\ngpus_per_node = 2.5\n" + job);
  const auto b = run_command(fleetwatt_command() + " predict --scenario " + bad.string());
  CHECK(b.exit_code == 2);
  CHECK(b.out.empty());
  CHECK(b.err.find("gpus_per_node") != std::string::npos);
}

TEST_CASE("a run plays an interleaved, uneven pipeline's bubble and compute as predicted",
          "[cli][predict][llm]") {
  // GPT-3 XL (24 layers) on 16 A100s: tp 2, pp 4, vp 2, 3 layers on the last stage (7 on each other), dp 2;
  // 10 steps of 64 sequences. Without a fabric the plan runs as predicted: the job's bubble and compute
  // times are the plan's parts.
  TempDir dir;
  const auto scenario = dir.write("pipe.toml", R"([fleet]
nodes = 2
gpus_per_node = 8
gpu = "a100-sxm-80gb"
[workload]
horizon_s = 100000
[[workload.jobs]]
id = 3
model = "gpt3_xl"
tp = 2
pp = 4
vp = 2
last_stage_layers = 3
dp = 2
micro_batch = 1
global_batch = 64
dataset_samples = 640
precision = "bf16"
)");
  const auto p = run_command(fleetwatt_command() + " predict --json --scenario " + scenario.string());
  INFO(p.err);
  REQUIRE(p.exit_code == 0);
  CHECK(json_number(p.out, "vp") == 2);
  CHECK(json_number(p.out, "last_stage_layers") == 3);
  const auto bubble = p.out.find("\"bubble\": {"), compute = p.out.find("\"compute\": {");
  REQUIRE(bubble != std::string::npos);
  REQUIRE(compute != std::string::npos);
  const double bubble_s = json_number(p.out, "s", bubble), compute_s = json_number(p.out, "s", compute);
  CHECK(bubble_s > 0.0);
  CHECK(bubble_s == Approx(10.0 * json_number(p.out, "bubble_s")));
  const auto out = dir / "pipe.h5";
  const auto r = run_command(fleetwatt_command() + " run -q " + scenario.string() + " -o " + out.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  fleetwatt::results::ResultReader h5(out);
  REQUIRE(h5.strings("/jobs/state").at(0) == "finished");
  CHECK(h5.doubles("/jobs/bubble_s").at(0) == Approx(bubble_s).epsilon(1e-6));
  CHECK(h5.doubles("/jobs/compute_s").at(0) == Approx(compute_s).epsilon(1e-6));
}
