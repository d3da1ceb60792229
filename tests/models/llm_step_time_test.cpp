// The 3D-parallel step-time model: its communication, bubble and plan against hand calculations, and its
// step times against measured and published figures (NeuSight's 4-GPU runs, Megatron-LM, Llama 3).
#include "fleetwatt/models/llm_step_time.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>

#include "fleetwatt/models/datasheet_predictor.hpp"
#include "fleetwatt/models/gemm_efficiency.hpp"
#include "fleetwatt/models/gpu_hardware.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models;
using fleetwatt::workloads::JobSpec;
using fleetwatt::workloads::PartKind;
using fleetwatt::workloads::Precision;
using fleetwatt::workloads::Recompute;
using fleetwatt::workloads::SoftwareStack;

namespace {

JobSpec llm_job(const std::string& model, std::uint32_t gpus, std::uint32_t batch, std::uint32_t seq,
                std::uint32_t tp, std::uint32_t pp, std::uint32_t micro, Recompute r, Precision p,
                std::uint32_t zero = 0) {
  JobSpec j;
  j.n_gpus = gpus;
  j.meta.model = model;
  j.meta.batch_size = batch;
  j.meta.dataset_samples = batch;  // one step per epoch
  j.meta.input_size = seq;
  j.meta.precision = p;
  j.meta.stack = p == Precision::fp32 ? SoftwareStack::eager : SoftwareStack::optimized;
  auto& par = j.meta.parallel;
  par.tp = tp, par.pp = pp, par.micro_batch = micro, par.recompute = r, par.zero = zero;
  return j;
}

/// Megatron-LM's FLOPs per iteration (Narayanan et al. 2021, section 5.1, with activation recomputation):
/// 96 B s l h^2 (1 + s / (6 h) + V / (16 l h)).
double megatron_flops(double B, double s, double l, double h, double V) {
  return 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
}

double relative_error(double predicted, double published) {
  return predicted / published - 1.0;
}

}  // namespace

TEST_CASE("A pipeline stage holds 1/(tp pp) of the layers and the last stage the output head",
          "[models][steptime]") {
  const ModelCount m = count_model("gpt3_175b", 2048);
  // The head by hand (the zoo's GPT-3: vocabulary 50,257, width 12,288, 2,048 tokens): the tied projection,
  // 2 x 2048 x 12288 x 50257 FLOPs reading T d and writing T V FP32 elements, the whole table as weights,
  // one kernel; the final LayerNorm, 5 FLOPs per element of T d, reading and writing T d, 2 d weights.
  const double T = 2048, d = 12288, V = 50257;
  const auto tensor = static_cast<std::size_t>(OpClass::tensor),
             memory = static_cast<std::size_t>(OpClass::memory);
  CHECK(m.head_ops[tensor].flops == Approx(2.0 * T * d * V));
  CHECK(m.head_ops[tensor].bytes == Approx(4.0 * (T * d + T * V)));
  CHECK(m.head_ops[tensor].weight_bytes == Approx(4.0 * V * d));
  CHECK(m.head_ops[tensor].kernels == 1.0);
  CHECK(m.head_ops[memory].flops == Approx(5.0 * T * d));
  CHECK(m.head_ops[memory].bytes == Approx(8.0 * T * d));
  CHECK(m.head_ops[memory].kernels == 1.0);
  const ModelCount s = pipeline_stage(m, 8, 16), last = pipeline_stage(m, 8, 16, true);
  const ModelCount whole = pipeline_stage(m, 8, 1);  // one stage: everything over tp
  for (std::size_t c = 0; c < kOpClasses; ++c) {
    const OpWork &o = m.ops[c], &h = m.head_ops[c];
    CHECK(s.ops[c].flops == Approx((o.flops - h.flops) / 128.0));
    CHECK(s.ops[c].bytes == Approx((o.bytes - h.bytes) / 128.0));
    CHECK(s.ops[c].weight_bytes == Approx((o.weight_bytes - h.weight_bytes) / 128.0));
    CHECK(s.ops[c].kernels == Approx((o.kernels - h.kernels) / 16.0));
    CHECK(last.ops[c].flops == Approx(s.ops[c].flops + h.flops / 8.0));
    CHECK(last.ops[c].weight_bytes == Approx(s.ops[c].weight_bytes + h.weight_bytes / 8.0));
    CHECK(last.ops[c].kernels == Approx(s.ops[c].kernels + h.kernels));
    CHECK(whole.ops[c].flops == Approx(o.flops / 8.0));
    CHECK(whole.ops[c].kernels == Approx(o.kernels));
  }
  // Per token the head is d V = 617.6M MACs beside a layer's 12 d^2 = 1,811.9M of projections: the last of
  // 16 stages (6 layers) does 1 + 617.6 / (6 x 1,811.9) = 1.0568 times a middle stage's tensor work.
  CHECK(last.ops[tensor].flops / s.ops[tensor].flops == Approx(1.0 + (d * V) / (6.0 * 12.0 * d * d)));
  CHECK(last.ops[tensor].flops / s.ops[tensor].flops == Approx(1.0568).epsilon(1e-4));
  CHECK(s.params == Approx(m.params / 128.0));
  CHECK(s.forward_flops == Approx(m.forward_flops / 128.0));
}

TEST_CASE("GPT-3 175B on 1,024 A100: communication and bubble by hand", "[models][steptime]") {
  // tp 8, pp 16, dp 8, micro-batch 1, global batch 1,536, sequence 2,048, BF16, full recomputation.
  const DatasheetPredictor pred;
  const GpuHardware& a100 = gpu_preset("a100-sxm-80gb");
  const JobSpec job = llm_job("gpt3_175b", 1024, 1536, 2048, 8, 16, 1, Recompute::full, Precision::bf16);
  const StepBreakdown b = pred.explain(job, a100);
  REQUIRE(b.parallel);
  const ParallelStep& s = *b.parallel;
  // m = 1536 / 8 replicas / 1 = 192; bubble about (16 - 1) / (192 + 15) = 15 / 207 (exactly so for stages
  // of equal work; the last one, with the output head, is 3 % slower: below).
  CHECK(s.dp == 8);
  CHECK(s.micro_batches == Approx(192.0));
  CHECK(s.bubble_fraction == Approx(15.0 / 207.0).epsilon(0.05));
  CHECK(s.layers_per_stage == Approx(6.0));  // 96 layers / 16 stages
  // One layer boundary: b s h x 2 bytes = 1 x 2048 x 12288 x 2 = 50,331,648 B. Ring all-reduce over 8 GPUs
  // on NVLink (300 GB/s): 2 x 7/8 x 50,331,648 / 300e9 + 2 x 7 x 5 us = 293.6 us + 70 us = 363.6 us.
  const double V = 2048.0 * 12288.0 * 2.0;
  const double allreduce = 2.0 * 7.0 / 8.0 * V / 300e9 + 14.0 * 5e-6;
  // 6 all-reduces per layer (4, and 2 more for the recomputed forward) x 6 layers x 192 micro-batches.
  CHECK(s.tp_comm_s == Approx(192.0 * 6.0 * 6.0 * allreduce));
  CHECK(s.tp_comm_s == Approx(2.5132).epsilon(1e-3));
  // Pipeline: 1,024 GPUs span nodes: each of the 8 TP GPUs sends V / 8 over the PCIe figure (32 GB/s),
  // plus 5 us, at 15 boundaries forward (fill) and backward (drain): 2 x 15 x (196.6 + 5) us = 6.05 ms.
  CHECK(s.pp_comm_s == Approx(2.0 * 15.0 * (V / (8.0 * 32e9) + 5e-6)));
  // Data parallel: the 1/128 shard of 174,604,259,328 parameters, 2 bytes each = 2,728,191,552 B, ring
  // all-reduced over 8 replicas at 32 GB/s: 1.75 x 2.728e9 / 32e9 + 14 x 5 us = 149.28 ms; the backward
  // pass (2/3 of ~50 s) hides 70 % of it, so 30 % = 44.78 ms is exposed.
  REQUIRE(b.model.params == 174604259328.0);
  const double G = 174604259328.0 / 128.0 * 2.0;
  CHECK(s.dp_comm_total_s == Approx(1.75 * G / 32e9 + 14.0 * 5e-6));
  CHECK(s.dp_comm_s == Approx(0.3 * s.dp_comm_total_s));
  // Step = compute + bubble + exposed communication. The last stage sets the pace (192 of its micro-batches);
  // the bubble is 15 slots of a middle stage's (work + TP), a share of the pipelined time of
  // 15 (t_mid + tp) / (192 (t_last + tp) + 15 (t_mid + tp)).
  const double tp_micro = s.tp_comm_s / 192.0;
  CHECK(s.bubble_s == Approx(15.0 * (s.middle_micro_batch_s + tp_micro)));
  CHECK(s.bubble_fraction == Approx(s.bubble_s / (192.0 * (s.micro_batch_s + tp_micro) + s.bubble_s)));
  // The head on the last stage: more than 1 and less than the tensor class's 1.0568 (other classes and the
  // launches do not grow with it).
  CHECK(s.micro_batch_s / s.middle_micro_batch_s > 1.01);
  CHECK(s.micro_batch_s / s.middle_micro_batch_s < 1.0568);
  CHECK(s.step_s == Approx(s.compute_s + s.bubble_s + s.tp_comm_s + s.pp_comm_s + s.dp_comm_s));
  CHECK(s.compute_s == Approx(192.0 * s.micro_batch_s + s.optimizer_s));
  // The plan: totals over the epoch's one step; the bubble at the resident floor; steps = 1.
  const auto& plan = b.plan;
  CHECK(plan.steps == 1.0);
  CHECK(plan[PartKind::compute].s == Approx(s.compute_s));
  CHECK(plan[PartKind::comm].s == Approx(s.comm_s));
  CHECK(plan.bubble.s == Approx(s.bubble_s));
  CHECK(plan.bubble.W == Approx(b.roofline.floor_W));
  CHECK(plan.bubble.W < plan[PartKind::compute].W);
}

TEST_CASE("The interleaved schedule divides the bubble by its virtual stages", "[models][steptime]") {
  // Narayanan et al., SC'21, section 2.2.2: with v model chunks per GPU the fill and drain take (p - 1) / v
  // micro-batch times, a bubble time fraction (p - 1) / (v m); each micro-batch crosses p v - 1 chunk
  // boundaries instead of p - 1. GPT-3 175B as above (p 16, m 192, 6 layers per stage), v = 2 and 3.
  const DatasheetPredictor pred;
  const GpuHardware& a100 = gpu_preset("a100-sxm-80gb");
  const JobSpec plain = llm_job("gpt3_175b", 1024, 1536, 2048, 8, 16, 1, Recompute::full, Precision::bf16);
  const StepBreakdown a = pred.explain(plain, a100);
  const double V = 2048.0 * 12288.0 * 2.0, p2p = V / (8.0 * 32e9) + 5e-6;  // one boundary, as above
  for (const std::uint32_t v : {2u, 3u}) {
    JobSpec job = plain;
    job.meta.parallel.vp = v;
    const StepBreakdown b = pred.explain(job, a100);
    const ParallelStep& s = *b.parallel;
    // The work, its TP traffic and the DP gradients do not change.
    CHECK(s.micro_batch_s == a.parallel->micro_batch_s);
    CHECK(s.compute_s == a.parallel->compute_s);
    CHECK(s.tp_comm_s == a.parallel->tp_comm_s);
    CHECK(s.dp_comm_s == a.parallel->dp_comm_s);
    // Bubble: 15 slots of a middle stage's (work + TP) / v; about 15 / (192 v + 15) of the pipelined time.
    CHECK(s.bubble_s == Approx(15.0 * (s.middle_micro_batch_s + s.tp_comm_s / 192.0) / v));
    CHECK(s.bubble_s == Approx(a.parallel->bubble_s / v));
    CHECK(s.bubble_fraction == Approx(15.0 / (192.0 * v + 15.0)).epsilon(0.05));
    CHECK(s.bubble_s / (s.compute_s - s.optimizer_s + s.tp_comm_s + s.bubble_s) ==
          Approx(s.bubble_fraction).epsilon(1e-9));
    // Fill and drain cross 16 v - 1 boundaries: 31 and 47 (15 without interleaving).
    CHECK(s.pp_comm_s == Approx(2.0 * (16.0 * v - 1.0) * p2p));
    CHECK(s.step_s == Approx(s.compute_s + s.bubble_s + s.tp_comm_s + s.pp_comm_s + s.dp_comm_s));
    CHECK(b.plan.bubble.s == Approx(s.bubble_s));
    // The first stage keeps 1 + 15 / (16 v) times the activations (Korthikanti et al. 2022, 4.2.3).
    CHECK(b.memory.activations == Approx(a.memory.activations * (1.0 + 15.0 / (16.0 * v))));
  }
  // Each chunk needs a layer: 16 stages x 7 chunks = 112 > 96 layers is refused at vp.
  JobSpec too_fine = plain;
  too_fine.meta.parallel.vp = 7;
  try {
    (void)pred.explain(too_fine, a100);
    FAIL("expected a ConfigError");
  } catch (const fleetwatt::workloads::ConfigError& e) {
    CHECK(e.field() == "vp");
    CHECK_THAT(e.what(), Catch::Contains("16 x 7 chunks exceed gpt3_175b's 96 layers"));
  }
  too_fine.meta.parallel.vp = 6;  // 96 chunks of one layer: allowed
  CHECK(pred.explain(too_fine, a100).parallel->bubble_s == Approx(a.parallel->bubble_s / 6.0));
}

TEST_CASE("Uneven stages: the slowest sets the pace and the others fill and drain once",
          "[models][steptime]") {
  // GPT-3 175B (96 layers) on 512 A100: tp 8, pp 8 (12 layers each), dp 8, micro-batch 1, 1,536 sequences
  // (m = 192). With first_stage_layers = 5 the other seven stages share 91 layers, 13 each.
  const DatasheetPredictor pred;
  const GpuHardware& a100 = gpu_preset("a100-sxm-80gb");
  const JobSpec even = llm_job("gpt3_175b", 512, 1536, 2048, 8, 8, 1, Recompute::full, Precision::bf16);
  JobSpec uneven = even;
  uneven.meta.parallel.first_stage_layers = 5;
  const auto n = uneven.meta.parallel.stage_layers(96);
  CHECK(n.first == 5.0);
  CHECK(n.middle == 13.0);
  CHECK(n.last == 13.0);
  const StepBreakdown a = pred.explain(even, a100), b = pred.explain(uneven, a100);
  const ParallelStep &e = *a.parallel, &u = *b.parallel;
  // A stage's GEMMs run at one efficiency whatever its layer count: the 13-layer middle stage's tensor class
  // takes 13 / 12 of the 12-layer one's.
  const auto tensor = static_cast<std::size_t>(OpClass::tensor);
  REQUIRE(e.first_micro_batch_s == e.middle_micro_batch_s);
  CHECK(u.middle_micro_batch_s > e.middle_micro_batch_s);
  CHECK(u.first_micro_batch_s < u.middle_micro_batch_s);
  // The last stage (13 layers and the head) is the slowest: the pace, its tensor class 13 / 12 of the even
  // last stage's layers plus the same head.
  CHECK(u.micro_batch_s == u.last_micro_batch_s);
  CHECK(u.pace_layers == 13.0);
  CHECK(u.layers_per_stage == 12.0);
  const double head = a.model.head_ops[tensor].flops / 8.0,
               layer = (a.model.ops[tensor].flops - 8.0 * head) / 96.0 / 8.0;
  CHECK(u.micro.class_s[tensor] / e.micro.class_s[tensor] ==
        Approx((4.0 * 13.0 * layer + 3.0 * head) / (4.0 * 12.0 * layer + 3.0 * head)));
  // Tensor-parallel traffic per micro-batch grows with the slowest stage's layers: 13 / 12.
  CHECK(u.tp_comm_s == Approx(e.tp_comm_s * 13.0 / 12.0));
  const double tp_layer = e.tp_comm_s / 192.0 / 12.0;
  // Step: 192 slots of the last stage; the bubble is the first stage's slot and six middle ones, once.
  CHECK(u.compute_s == Approx(192.0 * u.last_micro_batch_s + u.optimizer_s));
  CHECK(u.bubble_s ==
        Approx((u.first_micro_batch_s + 5.0 * tp_layer) + 6.0 * (u.middle_micro_batch_s + 13.0 * tp_layer)));
  CHECK(u.bubble_fraction ==
        Approx(u.bubble_s / (192.0 * (u.last_micro_batch_s + 13.0 * tp_layer) + u.bubble_s)));
  CHECK(u.step_s == Approx(u.compute_s + u.bubble_s + u.tp_comm_s + u.pp_comm_s + u.dp_comm_s));
  // Activations: the first stage keeps 5 layers for 8 micro-batches in flight, the second 13 for 7: 91
  // layer-flights where the even split keeps 12 x 8 = 96.
  CHECK(b.memory.activations == Approx(a.memory.activations * 91.0 / 96.0));
  // A split that leaves the other stages no common whole number of layers is refused at its key.
  JobSpec bad = even;
  bad.meta.parallel.first_stage_layers = 6;  // 90 layers over 7 stages
  try {
    (void)pred.explain(bad, a100);
    FAIL("expected a ConfigError");
  } catch (const fleetwatt::workloads::ConfigError& x) {
    CHECK(x.field() == "first_stage_layers");
    CHECK_THAT(x.what(), Catch::Contains("leave 90 of gpt3_175b's 96 layers for the other 7 stage(s)"));
  }
  bad.meta.parallel.first_stage_layers = 50, bad.meta.parallel.last_stage_layers = 50;
  CHECK_THROWS_AS(pred.explain(bad, a100), fleetwatt::workloads::ConfigError);
  // Without a pipeline the keys have nothing to set.
  fleetwatt::workloads::Parallelism one;
  one.last_stage_layers = 3;
  CHECK(one.pipeline_key_problem().first == "last_stage_layers");
  CHECK(one.pipeline_key_problem().second ==
        "last_stage_layers 3 sets a pipeline stage: it needs pp of at least 2");
  CHECK(one.stage_layers(96).first == 96.0);
}

TEST_CASE("Recomputation, ZeRO-3 and forward-only work change the step as Megatron and FSDP do",
          "[models][steptime]") {
  const DatasheetPredictor pred;
  const GpuHardware& h100 = gpu_preset("h100-sxm");
  // Full recomputation adds one forward to the 3 passes of the layers (not of the output head): the
  // compute-bound GEMM class of the last stage (the pace setter) takes (4 B + 3 H) / (3 B + 3 H) as long,
  // B its 16 layers' GEMM FLOPs and H the head's, per GPU (4 / 3 on a middle stage).
  const JobSpec none = llm_job("llama3_8b", 64, 256, 4096, 4, 2, 1, Recompute::none, Precision::bf16);
  JobSpec full = none;
  full.meta.parallel.recompute = Recompute::full;
  const StepBreakdown a = pred.explain(none, h100), b = pred.explain(full, h100);
  const auto tensor = static_cast<std::size_t>(OpClass::tensor);
  const double H = a.model.head_ops[tensor].flops / 4.0, B = (a.model.ops[tensor].flops - 4.0 * H) / 8.0;
  CHECK(H / B == Approx(0.15).margin(0.01));  // the head: 4096 x 128256 MACs per token, 2.4 layers' worth
  CHECK(b.parallel->micro.class_s[tensor] / a.parallel->micro.class_s[tensor] ==
        Approx((4.0 * B + 3.0 * H) / (3.0 * B + 3.0 * H)).epsilon(0.01));
  // ... and 2 more TP all-reduces per layer: 6 / 4 of the TP traffic.
  CHECK(b.tp_comm_s / a.tp_comm_s == Approx(1.5));
  // ZeRO-3 moves 3 (n-1)/n of the shard instead of 2 (n-1)/n (the bandwidth terms; latency alike).
  JobSpec z3 = none;
  z3.meta.parallel.zero = 3;
  const StepBreakdown c = pred.explain(z3, h100);
  const double alpha = 2.0 * 7.0 * 5e-6;  // dp = 64 / 8 = 8 replicas: 2 x 7 ring steps of 5 us
  CHECK((c.parallel->dp_comm_total_s - 1.5 * alpha) / (a.parallel->dp_comm_total_s - alpha) == Approx(1.5));
  // ZeRO >= 1 shards the optimiser step over the 8 replicas.
  CHECK(c.parallel->optimizer_s == Approx(a.parallel->optimizer_s / 8.0).epsilon(1e-9));
}

TEST_CASE("A plain data-parallel job keeps the one-GPU step and an epoch-level plan", "[models][steptime]") {
  const DatasheetPredictor pred;
  JobSpec j = llm_job("resnet50", 8, 256, 224, 1, 1, 0, Recompute::none, Precision::fp32);
  j.meta.dataset_samples = 256 * 10;
  const StepBreakdown b = pred.explain(j, gpu_preset("a100-sxm-80gb"));
  CHECK_FALSE(b.parallel);
  CHECK(b.plan.steps == 0.0);
  CHECK(b.plan.bubble.s == 0.0);
  CHECK(b.bubble_s == 0.0);
  CHECK(b.dp_comm_s == b.comm_s);
  CHECK(b.step_s == Approx(b.roofline.work_s + b.comm_s + b.io_s));
  // MFU = 256 x 3 x forward FLOPs / (step x 8 x 19.5 TFLOP/s).
  CHECK(b.mfu == Approx(256.0 * 3.0 * b.model.forward_flops / (b.step_s * 8.0 * 19.5e12)));
}

TEST_CASE("NeuSight's 4-GPU GPT-2 large runs: DP, TP and PP step times within 15 %", "[models][steptime]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  // Lee et al., "Forecasting GPU Performance for Deep Learning Training and Inference" (NeuSight, ASPLOS
  // 2025): label/NVIDIA_A100-SXM4-40GB/gpt2_large-train-1024-4-{dp4,tp4,pp4_1}.json, e2e_latency in ms of
  // one training step of GPT-2 large, sequence 1,024, global batch 4, FP32, on 4 A100 SXM4 40GB in one
  // node (collect_label_distributed.py: Megatron-LM through Accelerate; pp4_1 = 4 stages, 1 micro-batch).
  struct Row {
    const char* file;
    std::uint32_t tp, pp, micro;
  };
  const Row rows[] = {{"gpt2_large-train-1024-4-dp4.json", 1, 1, 0},
                      {"gpt2_large-train-1024-4-tp4.json", 4, 1, 0},
                      {"gpt2_large-train-1024-4-pp4_1.json", 1, 4, 4}};
  const DatasheetPredictor pred;
  const GpuHardware& gpu = gpu_preset("a100-sxm4-40gb");
  double sum_abs = 0.0;
  for (const Row& r : rows) {
    std::ifstream in(data / "neusight-asplos25/label/NVIDIA_A100-SXM4-40GB" / r.file);
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    const double measured_s = fleetwatt::test::json_number(text.str(), "e2e_latency") / 1e3;
    const JobSpec j =
        llm_job("gpt2_large", 4, 4, 1024, r.tp, r.pp, r.micro, Recompute::none, Precision::fp32);
    const double predicted_s = pred.explain(j, gpu).step_s;
    const double err = relative_error(predicted_s, measured_s);
    sum_abs += std::abs(err);
    INFO(fmt::format("{}: measured {:.1f} ms, predicted {:.1f} ms, error {:+.1f} %", r.file, 1e3 * measured_s,
                     1e3 * predicted_s, 100.0 * err));
    CHECK(std::abs(err) < 0.15);
  }
  INFO(fmt::format("mean absolute error {:.1f} %", 100.0 * sum_abs / 3.0));
  CHECK(sum_abs / 3.0 < 0.15);
}

TEST_CASE("Megatron-LM GPT-3 175B on 1,024 A100: the published step time and the documented miss",
          "[models][steptime]") {
  // Narayanan et al., SC'21 (arXiv 2104.04473), section 5.1: GPT-3 175B (96 layers, hidden 12,288, 96
  // heads, sequence 2,048, vocabulary 51,200) on 1,024 A100 GPUs with batch 1,536 reaches 140 teraFLOP/s
  // per GPU, "34 days" for 300B tokens. Its FLOPs per iteration, 96 B s l h^2 (1 + s/6h + V/16lh) =
  // 4.511e18, at 140e12 x 1,024 FLOP/s give a step of 31.47 s (300e9 / (1,536 x 2,048) = 95,367 steps x
  // 31.47 s = 34.7 days, the paper's estimate). Configuration as the paper's runs: tp 8 (one node), pp 16,
  // dp 8, micro-batch 1, BF16/FP16 mixed precision, full activation recomputation.
  const double published_s = megatron_flops(1536, 2048, 96, 12288, 51200) / (140e12 * 1024);
  CHECK(published_s == Approx(31.47).epsilon(1e-3));
  CHECK(published_s * 300e9 / (1536.0 * 2048.0) / 86400.0 == Approx(34.7).epsilon(0.01));
  const DatasheetPredictor pred;
  const JobSpec j = llm_job("gpt3_175b", 1024, 1536, 2048, 8, 16, 1, Recompute::full, Precision::bf16);
  const StepBreakdown b = pred.explain(j, gpu_preset("a100-sxm-80gb"));
  const double err = relative_error(b.step_s, published_s);
  INFO(
      fmt::format("published {:.2f} s, predicted {:.2f} s ({:+.1f} %): compute {:.2f} s, bubble {:.2f} s, "
                  "TP {:.2f} s, PP {:.3f} s, DP {:.3f} s",
                  published_s, b.step_s, 100.0 * err, b.parallel->compute_s, b.bubble_s, b.tp_comm_s,
                  b.pp_comm_s, b.dp_comm_s));
  // NOT within 15 % (README, "Step time of 3D-parallel jobs"), now on the fast side: with the GEMMs at
  // their size's efficiency (models/gemm_efficiency.hpp) the step is 18 % short of the published one (it
  // was +86 % at the fitted constant, 0.28 of peak; -20 % before the last stage carried the output head).
  // Pinned so that a change of the model shows here.
  CHECK(err == Approx(-0.182).margin(0.01));
  // The tensor class's efficiency by hand: the ampere curve eta_max 0.892363, d_half 39.8107 x (312 / 19.5)
  // x (2 / 4) = 318.49 in BF16; per layer on one of tp = 8 GPUs at 2,048 tokens: QKV 2048 x 12288 x 4608
  // (smallest 2048), output 2048 x 1536 x 12288 (1536), MLP 2048 x 12288 x 6144 and 2048 x 6144 x 12288
  // (2048), FLOPs 3 : 1 : 4 : 4. eta(2048) = 0.892363 x 2048 / 2366.49 = 0.772265, eta(1536) = 0.892363 x
  // 1536 / 1854.49 = 0.739108; the class: 12 / (11 / 0.772265 + 1 / 0.739108) = 0.769390. The last stage's
  // GEMM work at that rate: 4 passes (3 + the recomputed forward) of 1/128 of the layers' forward FLOPs and
  // 3 of 1/8 of the head's, per micro-batch:
  const double head_flops = b.model.head_ops[static_cast<std::size_t>(OpClass::tensor)].flops;
  const double gemm_flops = b.model.ops[static_cast<std::size_t>(OpClass::tensor)].flops - head_flops;
  const double eta =
      12.0 / (11.0 / (0.892363 * 2048 / (2048 + 318.49)) + 1.0 / (0.892363 * 1536 / (1536 + 318.49)));
  CHECK(eta == Approx(0.769390).epsilon(1e-5));
  CHECK(b.parallel->micro.class_s[static_cast<std::size_t>(OpClass::tensor)] ==
        Approx((4.0 * gemm_flops / 128.0 + 3.0 * head_flops / 8.0) / (eta * 312e12)).epsilon(0.005));
}

TEST_CASE("Llama 3 405B on 8,192 and 16,384 H100: published MFU and the documented miss",
          "[models][steptime]") {
  // Dubey et al. 2024, "The Llama 3 Herd of Models" (arXiv 2407.21783), table 4: 405B pre-training, TP 8,
  // CP 1, PP 16, sequence 8,192, 16M tokens per batch (2,048 sequences): 8,192 GPUs (DP 64) at 430 TFLOPs
  // per GPU, 43 % BF16 MFU; 16,384 GPUs (DP 128) at 400 TFLOPs per GPU, 41 % MFU. Step time = model FLOPs
  // per step / (TFLOPs per GPU x GPUs), the model FLOPs as fleetwatt counts them (6 N + 12 L s d per token).
  // (GPUs / TP / CP / PP / tokens per batch / TFLOPs per GPU: 8,192 / 8 / 1 / 16 / 16M / 430 and 16,384 / 8 /
  // 1 / 16 / 16M / 400, as also reproduced at glennklockwood.com/garden/llama-3.1 from Balaji, SC'24.)
  const DatasheetPredictor pred;
  const GpuHardware& h100 = gpu_preset("h100-sxm");
  struct Row {
    std::uint32_t gpus;
    double tflops, mfu, expected_error;
  };
  for (const Row r : {Row{8192, 430e12, 0.43, 0.730}, Row{16384, 400e12, 0.41, 1.123}}) {
    // Micro-batch 1; ZeRO-2-like sharding of gradients and optimiser (the report's FSDP keeps the weights
    // after the forward pass); selective recomputation stands for its memory-efficient attention; the first
    // and last stages one layer fewer (section 3.3.2: 7 + 14 x 8 + 7 = 126 layers), so the middle stages'
    // 8 layers set the pace, not the last stage's 7 and the output head (0.6 of a layer).
    JobSpec j =
        llm_job("llama31_405b", r.gpus, 2048, 8192, 8, 16, 1, Recompute::selective, Precision::bf16, 2);
    j.meta.parallel.first_stage_layers = j.meta.parallel.last_stage_layers = 7;
    const StepBreakdown b = pred.explain(j, h100);
    const double published_s = b.model_flops_per_step / (r.tflops * r.gpus);
    // The report's TFLOPs and MFU agree with the H100's 989.4 TFLOP/s BF16 peak to within a percent.
    CHECK(r.tflops / 989.4e12 == Approx(r.mfu).margin(0.01));
    const double err = relative_error(b.step_s, published_s);
    INFO(fmt::format(
        "{} GPUs: published {:.2f} s (MFU {:.0f} %), predicted {:.2f} s (MFU {:.1f} %, {:+.0f} %): "
        "compute {:.2f} s, bubble {:.2f} s ({:.0f} %), TP {:.2f} s, PP {:.3f} s, DP {:.3f} s",
        r.gpus, published_s, 100 * r.mfu, b.step_s, 100 * b.mfu, 100 * err, b.parallel->compute_s, b.bubble_s,
        100 * b.parallel->bubble_fraction, b.tp_comm_s, b.pp_comm_s, b.dp_comm_s));
    // NOT within 15 % (README): the 1F1B bubble, about 15 / 47 of the pipelined time at 32 micro-batches
    // per replica and 15 / 31 at 16. Pinned as documented.
    CHECK(err == Approx(r.expected_error).margin(0.02));
    CHECK(b.parallel->bubble_fraction == Approx(r.gpus == 8192 ? 15.0 / 47.0 : 15.0 / 31.0).epsilon(0.05));
    // The report runs an interleaved schedule (section 3.3.2: bubble (PP - 1) / (V M)) without giving V.
    // No V within the model's reach closes the gap: at the finest one the 7-layer end stages allow (V = 7,
    // one layer per chunk there; the "interleaved" test checks the bubble / V and the 16 V - 1 pipeline
    // boundaries) the step is still 27 % long, and with no bubble at all (V -> infinity) the compute and
    // the exposed tensor-parallel traffic alone are 18 % (8,192) and 11 % (16,384) long. What is left
    // is the H100's BF16 efficiency, which no measurement in ../shared/data constrains (FP32 kernels only).
    const ParallelStep& p = *b.parallel;
    const double rest = p.compute_s + p.tp_comm_s + p.dp_comm_s;
    const double v7 = rest + p.bubble_s / 7.0 + p.pp_comm_s * (16.0 * 7.0 - 1.0) / 15.0;
    CHECK(v7 / published_s - 1.0 == Approx(0.27).margin(0.01));
    CHECK(rest / published_s - 1.0 == Approx(r.gpus == 8192 ? 0.18 : 0.11).margin(0.01));
    // The work itself is reproduced: with the GEMMs at their size's efficiency (no Hopper kernels in the
    // data: the pooled curve, moved to the BF16 ridge point) the compute alone is within 15 % of the
    // published step (it was 0.18 of peak and 3-4x the published step at the fitted constant).
    CHECK(default_gemm_efficiency().family.count("hopper") == 0);
    CHECK(std::abs(b.parallel->compute_s / published_s - 1.0) < 0.15);
  }
}
