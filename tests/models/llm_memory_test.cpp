// Memory per GPU against the ZeRO paper's worked example and Korthikanti et al.'s activation formulas, and
// the datasheet predictor's refusal of a job that cannot fit.
#include "fleetwatt/models/training/llm_memory.hpp"

#include <catch2/catch.hpp>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"

using namespace fleetwatt::models;
using fleetwatt::jobs::ConfigError;
using fleetwatt::jobs::JobSpec;
using fleetwatt::jobs::Parallelism;
using fleetwatt::jobs::Precision;
using fleetwatt::jobs::Recompute;

TEST_CASE("ZeRO stages reproduce the paper's 7.5B example on 64 GPUs", "[models][memory]") {
  // Rajbhandari et al. 2020, figure 1: Psi = 7.5B, K = 12, N_d = 64. Baseline (2 + 2 + K) Psi = 120 GB;
  // P_os: 2 Psi + 2 Psi + K Psi / N_d = 31.4 GB; P_os+g: 2 Psi + (2 + K) Psi / N_d = 16.6 GB;
  // P_os+g+p: (2 + 2 + K) Psi / N_d = 1.9 GB.
  const StateBytes mixed = training_state_bytes(Precision::bf16);
  CHECK(zero_model_state(7.5e9, 64, 0, mixed).total() == Approx(120e9));
  CHECK(zero_model_state(7.5e9, 64, 1, mixed).total() == Approx(31.40625e9));
  CHECK(zero_model_state(7.5e9, 64, 2, mixed).total() == Approx(16.640625e9));
  CHECK(zero_model_state(7.5e9, 64, 3, mixed).total() == Approx(1.875e9));
  // Rounded as the figure prints them.
  CHECK(std::round(zero_model_state(7.5e9, 64, 1, mixed).total() / 1e8) == 314);
  CHECK(std::round(zero_model_state(7.5e9, 64, 2, mixed).total() / 1e8) == 166);
  CHECK(std::round(zero_model_state(7.5e9, 64, 3, mixed).total() / 1e8) == 19);
  // FP32 Adam: 4 + 4 + 8 bytes, the same 16 per parameter.
  CHECK(zero_model_state(1e9, 1, 0, training_state_bytes(Precision::fp32)).total() == Approx(16e9));
}

TEST_CASE("Activation bytes per layer follow Korthikanti et al. 2022", "[models][memory]") {
  // GPT-3 175B (a = 96, h = 12288, s = 2048), b = 1. s b h = 25,165,824.
  // No recomputation, t = 1: s b h (34 + 5 a s / h) = 25,165,824 x (34 + 80) = 2,868,903,936 bytes.
  CHECK(activation_bytes_per_layer(2048, 1, 12288, 96, 1, Recompute::none) == 2868903936.0);
  // Tensor + sequence parallel t = 8: / 8 = 358,612,992.
  CHECK(activation_bytes_per_layer(2048, 1, 12288, 96, 8, Recompute::none) == 358612992.0);
  // Selective: 34 s b h / t = 855,638,016 / 8 = 106,954,752.
  CHECK(activation_bytes_per_layer(2048, 1, 12288, 96, 8, Recompute::selective) == 106954752.0);
  // Full: 2 s b h = 50,331,648.
  CHECK(activation_bytes_per_layer(2048, 1, 12288, 96, 8, Recompute::full) == 50331648.0);
  // Section 4.3's point: selective recomputation cuts the 175B model's activations by 114 / 34 = 3.35x at
  // t = 1 ("the 5 a s / h term ... is 80 for GPT-3 175B"; the paper reports a 70 % saving at t = 8).
  CHECK(activation_bytes_per_layer(2048, 1, 12288, 96, 1, Recompute::none) /
            activation_bytes_per_layer(2048, 1, 12288, 96, 1, Recompute::selective) ==
        Approx(114.0 / 34.0));
}

TEST_CASE("Memory per GPU of GPT-3 175B on 512 GPUs by hand", "[models][memory]") {
  // tp 8, pp 8, dp 8, ZeRO 1, selective recomputation, micro-batch 1, global batch 1536 (per replica 192).
  const ModelCount m = count_model("gpt3_175b");
  MemoryJob job;
  job.parallel.tp = 8, job.parallel.pp = 8, job.parallel.zero = 1, job.parallel.micro_batch = 1;
  job.parallel.recompute = Recompute::selective;
  job.dp = 8, job.per_replica_batch = 192, job.precision = Precision::bf16;
  const MemoryBreakdown mem = memory_per_gpu(m, job);
  // Shard P = 174,604,259,328 / 64 = 2,728,191,552: weights 2 P, gradients 2 P, optimizer 12 P / 8.
  CHECK(mem.weights == Approx(2.0 * 2728191552.0));
  CHECK(mem.gradients == Approx(2.0 * 2728191552.0));
  CHECK(mem.optimizer == Approx(12.0 * 2728191552.0 / 8));
  // 96 / 8 = 12 layers per stage, 8 micro-batches in flight on the first stage, 106,954,752 bytes each.
  CHECK(mem.activations == Approx(12.0 * 8 * 106954752.0));
  // 25.8 GB in all: it fits an 80 GB H100, which plain data parallelism (2.8 TB) never would.
  CHECK(mem.total() == Approx(4.0 * 2728191552.0 + 1.5 * 2728191552.0 + 96 * 106954752.0));
  job.parallel = Parallelism{};
  job.dp = 512;
  CHECK(memory_per_gpu(m, job).total() > 2.7e12);
}

TEST_CASE("Mixture-of-experts shards its experts over ep", "[models][memory]") {
  // Mixtral 8x7B, dp 8 with ep 8, ZeRO 0: the 45,097,156,608 expert parameters are split 8 ways, the
  // 1,605,636,096 others replicated: 2 bytes x (1,605,636,096 + 5,637,144,576) weights.
  const ModelCount m = count_model("mixtral_8x7b");
  const double experts = 32.0 * 8 * 176160768, shared = 46702792704.0 - experts;
  MemoryJob job;
  job.parallel.ep = 8, job.dp = 8, job.per_replica_batch = 1, job.precision = Precision::bf16;
  CHECK(memory_per_gpu(m, job).weights == Approx(2.0 * (shared + experts / 8)));
  // ZeRO 3 shards the experts' state over dp / ep = 1 replica and the rest over 8.
  job.parallel.zero = 3;
  CHECK(memory_per_gpu(m, job).weights == Approx(2.0 * (shared / 8 + experts / 8)));
}

TEST_CASE("The datasheet predictor refuses an LLM job that cannot fit, naming the need", "[models][memory]") {
  const DatasheetPredictor predictor(DatasheetParams{}, nullptr);
  const GpuHardware& h100 = gpu_preset("h100-sxm");
  JobSpec j;
  j.n_gpus = 8;
  j.meta.model = "llama2_70b";
  j.meta.batch_size = 8;
  j.meta.dataset_samples = 1e4;
  j.meta.input_size = 4096;
  j.meta.precision = Precision::bf16;
  // Data parallel on 8 GPUs: 16 bytes x 69B = 1.1 TB per GPU.
  CHECK_THROWS_WITH(predictor.explain(j, h100), Catch::Contains("GiB per GPU") && Catch::Contains("h100"));
  // tp 8 (dp 1) still holds 16 x 69B / 8 = 138 GB per GPU.
  j.meta.parallel.tp = 8;
  CHECK_THROWS_AS(predictor.explain(j, h100), ConfigError);
  // 64 GPUs, tp 8, dp 8, ZeRO 3, full recomputation, micro-batch 1: 16 x 68.98e9 / 64 = 17.2 GB of state
  // and 80 layers x 2 x 4096 x 8192 bytes = 5.4 GB of activations.
  j.n_gpus = 64, j.meta.batch_size = 64;
  j.meta.parallel.zero = 3, j.meta.parallel.micro_batch = 1, j.meta.parallel.recompute = Recompute::full;
  const StepBreakdown s = predictor.explain(j, h100);
  CHECK(s.memory.total() == Approx(16.0 * 68976648192.0 / 64 + 80.0 * 2 * 4096 * 8192));
  CHECK(s.memory_need_bytes == s.memory.total());
  // n_gpus that tp x pp does not divide is refused.
  j.n_gpus = 60;
  CHECK_THROWS_WITH(predictor.explain(j, h100), Catch::Contains("multiple of tp x cp x pp"));
}
