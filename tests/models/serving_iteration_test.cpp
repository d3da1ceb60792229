// A continuous-batching serving iteration against hand calculations of its parts (the tensor-core GEMM
// formula, cached keys' and values' reads, element-wise kernels, NCCL all-reduces, the host time), its power
// against the utilisation power formula, its refusals, and the measured check on SplitwiseSim's A100 and
// H100 prompt and token times and A100 power (Patel et al., "Splitwise", ISCA 2024; MIT).
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <stdexcept>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/fit/serving_check.hpp"
#include "fleetwatt/models/hardware/collectives.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/hardware/tensor_gemm.hpp"
#include "fleetwatt/models/serving/serving_iteration.hpp"
#include "test_support.hpp"

namespace fleetwatt::models {
namespace {

/// Two Llama-layout layers of width 1024, 8 heads of 128, a gated feed-forward of 4096, no vocabulary.
ServingReplica small_replica(std::uint32_t tp) {
  jobs::ModelShape s;
  s.layers = 2, s.hidden = 1024, s.heads = 8, s.kv_heads = 8, s.ffn_hidden = 4096, s.vocab = 0;
  ServingReplica r;
  r.model = decoder_from_shape(s, 2048, "small");
  r.gpu = find_gpu("a100-sxm-80gb");
  r.tp = tp;
  return r;
}

/// The tensor-core GEMM formula written out: 2 M N K / (eta peak) (1 + d_half / min) + t0, A100 FP16 at
/// 312 TFLOP/s.
double gemm_s(double m, double n, double k, double batch = 1.0) {
  const TensorGemmFit& f = default_tensor_gemm();
  const double eta = f.eta_max.at("a100-sxm-80gb");
  return 2.0 * batch * m * n * k / (eta * 312e12) * (1.0 + f.d_half / std::min({m, n, k})) + f.t0_s;
}

/// The bandwidth the roofline fit reaches on an Ampere board: eta_memory x the family's factor x 2039 GB/s.
double ampere_bw() {
  const PredictorFit& fit = default_predictor_fit();
  return std::min(1.0, fit.time.eta_memory * fit.time.family_memory.at("ampere")) * 2039e9;
}

TEST_CASE("A decode iteration is its layers' GEMMs, cache reads, element-wise kernels and host time",
          "[models][serving]") {
  const ServingReplica r = small_replica(1);
  IterationBatch b;
  b.decode_sequences = 4, b.decode_context_tokens = 4 * 100;
  ServingConstants c;
  c.decode_graphs = false;  // a stack launching every kernel from the host
  const IterationCost cost = serving_iteration(r, b, c);
  const double t0 = default_tensor_gemm().t0_s, bw = ampere_bw();
  // QKV (8 + 2 x 8 heads of 128), output, gate and up, down: four GEMMs of 4 rows per layer.
  const double gemms =
      gemm_s(4, 3 * 1024, 1024) + gemm_s(4, 1024, 1024) + gemm_s(4, 2 * 4096, 1024) + gemm_s(4, 1024, 4096);
  CHECK(cost.gemm_s == Approx(2 * gemms).epsilon(1e-12));
  // 400 cached tokens' keys and values: 400 x 2 x 8 heads x 128 x 2 bytes per layer.
  CHECK(cost.attention_s == Approx(2 * (400.0 * 2 * 8 * 128 * 2 / bw + t0)).epsilon(1e-12));
  // Six kernels per layer, each reading and writing 4 tokens x 1024 x 2 bytes.
  CHECK(cost.elementwise_s == Approx(2 * 6 * (4.0 * 1024 * 4 / bw + t0)).epsilon(1e-12));
  CHECK(cost.comm_s == 0.0);
  CHECK(cost.overhead_s == Approx(2 * c.layer_overhead_s).epsilon(1e-15));
  CHECK(cost.time_s ==
        Approx(cost.gemm_s + cost.attention_s + cost.elementwise_s + cost.overhead_s).epsilon(1e-15));

  // Busy share: the GEMMs' work (their kernels' fixed times off) plus the memory work (the same), over the
  // iteration; power by the utilisation formula at the tensor-core saturation.
  const PredictorFit& fit = default_predictor_fit();
  const double work =
      (cost.gemm_s - 8 * t0) + fit.power.memory_weight * (cost.attention_s + cost.elementwise_s - 14 * t0);
  CHECK(cost.busy_share == Approx(work / cost.time_s).epsilon(1e-12));
  const double floor_W = resident_floor(r.gpu, fit.power);
  const double expected_W = floor_W + (fit.power.tensor_core_saturation * 400.0 - floor_W) *
                                          std::pow(cost.busy_share, fit.power.exponent);
  CHECK(cost.power_W == Approx(expected_W).epsilon(1e-12));
}

TEST_CASE(
    "A decode-only iteration replays a CUDA graph with no host time, one with prompt tokens waits for it",
    "[models][serving]") {
  const ServingReplica r = small_replica(1);
  IterationBatch decode;
  decode.decode_sequences = 4, decode.decode_context_tokens = 400;
  ServingConstants graphs, eager;
  eager.decode_graphs = false;
  const IterationCost g = serving_iteration(r, decode, graphs), e = serving_iteration(r, decode, eager);
  CHECK(graphs.decode_graphs);  // vLLM's default
  CHECK(g.overhead_s == 0.0);
  CHECK(e.time_s - g.time_s == Approx(2 * eager.layer_overhead_s).epsilon(1e-9));
  // The same work in less time: busier, so it draws more.
  CHECK(g.busy_share == Approx(e.busy_share * e.time_s / g.time_s).epsilon(1e-12));
  CHECK(g.power_W > e.power_W);
  // A prompt chunk in the batch: launched from the host either way.
  IterationBatch mixed = decode;
  mixed.prefill_tokens = 64, mixed.prefill_sequences = 1, mixed.prefill_attended_keys = 64 * 65 / 2.0;
  CHECK(serving_iteration(r, mixed, graphs).overhead_s == Approx(2 * graphs.layer_overhead_s).epsilon(1e-15));
}

TEST_CASE("Tensor parallelism splits the GEMMs and adds two all-reduces per layer on the NCCL fit",
          "[models][serving]") {
  const ServingReplica r = small_replica(2);
  IterationBatch b;
  b.decode_sequences = 4, b.decode_context_tokens = 400;
  const IterationCost cost = serving_iteration(r, b);
  const double gemms =
      gemm_s(4, 3 * 1024 / 2.0, 1024) + gemm_s(4, 1024, 512) + gemm_s(4, 4096, 1024) + gemm_s(4, 1024, 2048);
  CHECK(cost.gemm_s == Approx(2 * gemms).epsilon(1e-12));
  // Half the kv heads per GPU.
  CHECK(cost.attention_s ==
        Approx(2 * (400.0 * 2 * 4 * 128 * 2 / ampere_bw() + default_tensor_gemm().t0_s)).epsilon(1e-12));
  // A100: alpha 45.7 us, bus 0.554 x 300 GB/s; 4 tokens x 1024 x 2 bytes, 2 (n - 1) / n = 1.
  const CollectiveLink link = all_reduce_link(default_collectives(), r.gpu);
  CHECK(link.alpha_s == Approx(45.7e-6).epsilon(0.01));
  CHECK(cost.comm_s == Approx(2 * 2 * (link.alpha_s + 4.0 * 1024 * 2 / link.bus_Bps)).epsilon(1e-12));
}

TEST_CASE("Pipeline stages add the hidden states' hand-overs: NVLink within a node, the node's link across",
          "[models][serving]") {
  IterationBatch b;
  b.decode_sequences = 4, b.decode_context_tokens = 400;
  ServingReplica r = small_replica(2);
  const IterationCost flat = serving_iteration(r, b);
  // Two stages of two A100s: one hand-over of 4 tokens x 1024 x 2 bytes on the measured send/recv link.
  r.pp = 2;
  const IterationCost two = serving_iteration(r, b);
  const CollectiveLink p2p = send_recv_link(default_collectives(), r.gpu);
  const double bytes = 4.0 * 1024 * 2;
  CHECK(two.comm_s - flat.comm_s == Approx(p2p.alpha_s + bytes / p2p.bus_Bps).epsilon(1e-9));
  CHECK(two.time_s - flat.time_s == Approx(p2p.alpha_s + bytes / p2p.bus_Bps).epsilon(1e-9));
  CHECK(two.gemm_s == flat.gemm_s);  // every layer, as one engine's pass goes through them all
  // Eight stages of two: sixteen GPUs, two nodes of eight; six hand-overs within a node and one between them
  // at PCIe 4's 32 GB/s a GPU (the inter-node link per GPU, as training's pipelines take it) and 5 us.
  r.model.blocks = 8, r.pp = 1;
  const IterationCost layers8 = serving_iteration(r, b);
  r.pp = 8;
  const IterationCost eight = serving_iteration(r, b);
  CHECK(r.gpu.nvlink_domain_gpus == 0);  // the preset states none: an HGX node's eight
  CHECK(eight.comm_s - layers8.comm_s ==
        Approx(6 * (p2p.alpha_s + bytes / p2p.bus_Bps) + (5e-6 + bytes / r.gpu.pcie_bw_Bps)).epsilon(1e-9));
  // More stages than layers cannot run.
  r.pp = 9;
  CHECK(replica_problem(r).first == "pp");
  CHECK_THROWS_WITH(serving_iteration(r, b), Catch::Contains("9 stages"));
}

TEST_CASE("Prompt attention is causal: two GEMMs per head over the keys each query attends",
          "[models][serving]") {
  const ServingReplica r = small_replica(1);
  IterationBatch b;
  b.prefill_tokens = 512, b.prefill_sequences = 1, b.prefill_attended_keys = 512.0 * 513 / 2;
  const IterationCost cost = serving_iteration(r, b);
  // 512 queries against 256.5 keys on average, width 128, 8 heads.
  const double attention = gemm_s(512, 256.5, 128, 8) + gemm_s(512, 128, 256.5, 8);
  CHECK(cost.attention_s == Approx(2 * attention).epsilon(1e-12));
  // Two prompts of 512 attend twice the pairs in twice the heads' GEMMs.
  b.prefill_tokens = 1024, b.prefill_sequences = 2, b.prefill_attended_keys = 2 * 512.0 * 513 / 2;
  const double two = gemm_s(512, 256.5, 128, 16) + gemm_s(512, 128, 256.5, 16);
  CHECK(serving_iteration(r, b).attention_s == Approx(2 * two).epsilon(1e-12));
}

TEST_CASE("A busier iteration draws more, an idle-bound one near the floor, none past the board",
          "[models][serving]") {
  const ServingReplica r = small_replica(1);
  const PredictorFit& fit = default_predictor_fit();
  double last = 0.0;
  for (const double batch : {1.0, 8.0, 64.0, 512.0}) {
    IterationBatch b;
    b.decode_sequences = batch, b.decode_context_tokens = batch * 1000;
    const IterationCost c = serving_iteration(r, b);
    CHECK(c.power_W > last);
    CHECK(c.power_W <= r.gpu.tdp_W);
    last = c.power_W;
  }
  // A second of host time per layer: the GPUs wait nearly all of the iteration.
  IterationBatch b;
  b.decode_sequences = 1, b.decode_context_tokens = 100;
  ServingConstants slow;
  slow.layer_overhead_s = 1.0;
  slow.decode_graphs = false;
  const IterationCost c = serving_iteration(r, b, slow);
  CHECK(c.busy_share < 1e-4);
  CHECK(c.power_W == Approx(resident_floor(r.gpu, fit.power)).epsilon(0.01));
}

TEST_CASE("A serving iteration refuses what cannot run", "[models][serving]") {
  IterationBatch b;
  b.decode_sequences = 1, b.decode_context_tokens = 10;
  ServingReplica r = small_replica(0);
  CHECK_THROWS_AS(serving_iteration(r, b), std::invalid_argument);
  r = small_replica(2);
  r.gpu = find_gpu("l40s");  // no NVLink
  CHECK_THROWS_WITH(serving_iteration(r, b), Catch::Contains("no NVLink"));
  r = small_replica(1);
  CHECK_THROWS_AS(serving_iteration(r, IterationBatch{}), std::invalid_argument);
  IterationBatch negative = b;
  negative.decode_context_tokens = -1;
  CHECK_THROWS_AS(serving_iteration(r, negative), std::invalid_argument);
  r.model = count_model("resnet50", 224);
  CHECK_THROWS_WITH(serving_iteration(r, b), Catch::Contains("not a transformer decoder"));
}

TEST_CASE("SplitwiseSim's rows are averaged, odd ones excluded with the reason, bad ones located",
          "[models][serving]") {
  test::TempDir dir;
  const std::string header =
      "model,hardware,prompt_size,batch_size,token_size,peak_power,average_power,prompt_time,token_time,"
      "e2e_time,tensor_parallel\n";
  const auto file = dir.write("perf_model.csv", header +
                                                    "llama2-70b,a100-80gb,512,1,128,1.0,0.70,190,50,6590,2\n"
                                                    "llama2-70b,a100-80gb,512,1,128,1.0,0.74,210,60,7890,2\n"
                                                    "llama2-70b,a100-80gb,512,2,128,1.0,0.15,150,61,7958,2\n"
                                                    "llama2-70b,h100-80gb-pcap,512,1,128,0,0,100,30,3940,2\n"
                                                    "opt-13b,a100-80gb,512,1,128,0,0,100,30,3940,2\n");
  const auto rows = read_splitwise_perf(dir.path());
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].repeats == 2);
  CHECK(rows[0].prompt_s == Approx(0.200));
  CHECK(rows[0].token_s == Approx(0.055));
  CHECK(rows[0].power_fraction == Approx(0.72));
  CHECK(rows[0].excluded.empty());
  CHECK(rows[0].where.line == 2);
  // Batch 2's prompt phase, 150 ms, below batch 1's 200 ms; its 60 W mean, below 1.25 x 62 W idle.
  CHECK(rows[1].excluded.find("below 0.200 s at batch 1") != std::string::npos);
  CHECK(rows[1].power_excluded.find("below 1.25 x the board's idle 62 W") != std::string::npos);

  dir.write("perf_model.csv", header + "llama2-70b,a100-80gb,512,1,128,1.0,0.70,190,-50,6590,2\n");
  try {
    (void)read_splitwise_perf(dir.path());
    FAIL("no error");
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    CHECK(what.find("perf_model.csv:2:") != std::string::npos);
    CHECK(what.find("token_time") != std::string::npos);
  }
}

TEST_CASE("SplitwiseSim's prompt and token times and A100 power, each GPU with the other's host time",
          "[models][serving]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto rows = read_splitwise_perf(data / "splitwise-sim");
  const ServingCheck check = check_serving(rows);
  WARN(fmt::format("prompt {:.3f}, token {:.3f}, power {:.3f} over {} rows; overhead {:.1f} us",
                   check.all.prompt_mre, check.all.token_mre, check.all.power_mre, check.all.rows,
                   1e6 * check.layer_overhead_s));
  // 152 configurations of Llama-2-70B (tp 2, 4, 8) and BLOOM-176B (tp 8) on the A100 and H100; the two
  // batch-64 prompt phases that ran faster than batch 32 (tp 2 on both GPUs) are excluded.
  CHECK(rows.size() == 152);
  CHECK(check.excluded == 2);
  CHECK(check.all.rows == 150);
  // Mean power measured on the A100 at 128 generated tokens; the three 8,192-token prompts' windows held an
  // idle board (0.17-0.18 of 400 W).
  CHECK(check.all.power_rows == 41);
  // Guards just above the measured figures: prompt 16.9 %, token 10.0 %, power 7.0 % (A100 only: no H100
  // power in the source); per GPU, prompt 15.4 % (A100) and 18.4 % (H100).
  CHECK(check.all.prompt_mre < 0.175);
  CHECK(check.all.token_mre < 0.105);
  CHECK(check.all.power_mre < 0.075);
  CHECK(check.gpus.at("a100-sxm-80gb").prompt_mre < 0.16);
  CHECK(check.gpus.at("h100-sxm").prompt_mre < 0.19);
  // The host time per layer is a property of the serving stack, not of the GPU: fitted on either GPU alone
  // it is within a fifth of the other (191 and 225 us).
  CHECK(check.overhead_without_gpu.at("a100-sxm-80gb") / check.overhead_without_gpu.at("h100-sxm") ==
        Approx(1.18).margin(0.03));
  // The built-in constant is this fit on every row.
  CHECK(ServingConstants{}.layer_overhead_s == Approx(check.layer_overhead_s).epsilon(0.01));
}

}  // namespace
}  // namespace fleetwatt::models
