// The roofline step model and the power from the achieved fraction: a hand-made model on a hand-made GPU,
// every figure worked out in the comments.
#include "fleetwatt/models/hardware/roofline.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/models/hardware/clock_model.hpp"

using namespace fleetwatt::models;
using fleetwatt::jobs::Precision;
using fleetwatt::jobs::SoftwareStack;

namespace {

GpuHardware test_gpu() {
  GpuHardware g;
  g.id = "test";
  g.arch = "testarch";
  g.memory_type = "hbm";
  g.tdp_W = 300.0;
  g.fp32_flops = 10e12;
  g.fp16_flops = 80e12;
  g.memory_bw_Bps = 1e12;
  g.memory_bytes = 16e9;
  return g;
}

ModelCount test_model() {
  ModelCount m;
  m.family = ModelFamily::cnn;
  m.params = 1e6;
  m.param_tensors = 10;
  m.forward_flops = 1.01e9;
  m.ops[0] = {1e9, 1e6, 4e6, 10};  // tensor
  m.ops[1] = {1e7, 4e6, 0, 5};     // vector
  m.ops[2] = {1e6, 8e6, 0, 20};    // memory
  return m;
}

RooflineConstants test_time() {
  RooflineConstants t;
  t.eta = {0.5, 0.25, 0.5, 0.4};
  t.eta_memory = 0.8;
  t.kernel_launch_s = 1e-5;
  t.optimizer_bytes_per_param = 16;
  t.optimizer_kernels_per_tensor = 3;
  t.stack_factor = {1.0, 1.0, 0.5, 0.25};
  t.data_s_per_sample = 0.0;
  return t;
}

UtilisationPowerConstants test_power() {
  UtilisationPowerConstants p;
  p.floor_hbm = 0.1;
  p.saturation = {0.9, 0.95, 0.8};
  p.exponent = 0.5;
  p.memory_weight = 0.5;
  return p;
}

}  // namespace

/// The soft knee (a^4 + b^4)^(1/4) and the share of it the first term carries.
double soft(double a, double b) {
  return std::pow(std::pow(a, 4) + std::pow(b, 4), 0.25);
}
double share(double a, double b) {
  return std::pow(a, 4) / (std::pow(a, 4) + std::pow(b, 4));
}

TEST_CASE("The roofline step follows its equations", "[models][roofline]") {
  StepInputs in;
  in.per_gpu_batch = 32;
  const RooflineStep s = roofline_step(test_model(), in, test_gpu(), test_time(), test_power());
  // tensor: 3 x 32 x 1e9 FLOP at 0.5 x 10 TFLOP/s = 19.2 ms; bytes 3 x (32 x 1e6 + 4e6) = 108 MB at
  // 0.8 TB/s = 0.135 ms: compute-bound.
  CHECK(s.class_s[0] == Approx(soft(0.0192, 1.35e-4)));
  // vector: 9.6e8 FLOP at 2.5 TFLOP/s = 0.384 ms; 3 x 32 x 4e6 = 384 MB at 0.8 TB/s = 0.48 ms.
  CHECK(s.class_s[1] == Approx(soft(3.84e-4, 4.8e-4)));
  // memory: 9.6e7 FLOP at 5 TFLOP/s = 19.2 us; 3 x 32 x 8e6 = 768 MB at 0.8 TB/s = 0.96 ms.
  CHECK(s.class_s[2] == Approx(soft(1.92e-5, 9.6e-4)));
  CHECK(s.class_s[3] == 0.0);
  // Optimiser: 1e6 params x 16 B at 0.8 TB/s = 20 us.
  CHECK(s.optimizer_s == Approx(2e-5));
  // Launches: 3 x (10 + 5 + 20) forward-and-backward kernels + 10 tensors x 3 optimiser kernels = 135, at
  // 10 us each, overlapping the GPU's work.
  CHECK(s.launch_s == Approx(1.35e-3));
  const double bound = s.class_s[0] + s.class_s[1] + s.class_s[2] + 2e-5;
  CHECK(s.full_clock_s == Approx(soft(bound, 1.35e-3)));
  const double compute = s.class_s[0] * share(0.0192, 1.35e-4) + s.class_s[1] * share(3.84e-4, 4.8e-4) +
                         s.class_s[2] * share(1.92e-5, 9.6e-4);
  const double memory = bound - compute;
  const double u = (compute + 0.5 * memory) / s.full_clock_s;
  CHECK(s.achieved == Approx(u));
  // Floor 0.1 x 300 W (HBM rule); saturation 0.9 x 300 W (CNN); P = 30 + 240 sqrt(u).
  CHECK(s.floor_W == Approx(30.0));
  CHECK(s.saturation_W == Approx(270.0));
  CHECK(s.power_W == Approx(30.0 + 240.0 * std::sqrt(u)));
  CHECK(s.stretch == 1.0);
  CHECK(s.step_s == Approx(s.full_clock_s).epsilon(1e-6));
}

TEST_CASE("Fusion, frozen backbones, precision, loading and caps change the step as stated",
          "[models][roofline]") {
  StepInputs in;
  in.per_gpu_batch = 32;
  const RooflineStep eager = roofline_step(test_model(), in, test_gpu(), test_time(), test_power());
  in.stack = SoftwareStack::compiled;  // memory-class bytes and every launch halved
  const RooflineStep fused = roofline_step(test_model(), in, test_gpu(), test_time(), test_power());
  CHECK(fused.class_s[2] == Approx(soft(1.92e-5, 4.8e-4)));
  CHECK(fused.launch_s == Approx(eager.launch_s / 2));
  CHECK(fused.class_s[0] == eager.class_s[0]);

  in = StepInputs{};
  in.per_gpu_batch = 32;
  in.pass_factor = 1.0;  // frozen backbone: forward only, no optimiser
  const RooflineStep frozen = roofline_step(test_model(), in, test_gpu(), test_time(), test_power());
  CHECK(frozen.class_s[0] == Approx(soft(0.0192 / 3, 1.08e8 / 3 / 0.8e12)));
  CHECK(frozen.optimizer_s == 0.0);
  CHECK(frozen.launch_s == Approx(35 * 1e-5));

  in = StepInputs{};
  in.per_gpu_batch = 32;
  in.precision = Precision::bf16;  // tensor path: 80 TFLOP/s x 0.5 x half factor 0.5; half the bytes
  const RooflineStep half = roofline_step(test_model(), in, test_gpu(), test_time(), test_power());
  CHECK(half.class_s[0] == Approx(soft(9.6e10 / (0.25 * 80e12), 0.5 * 1.08e8 / 0.8e12)));
  // memory class: vector FLOPs at twice the FP32 rate, half the bytes.
  CHECK(half.class_s[2] == Approx(soft(9.6e7 / (0.5 * 20e12), 4.8e-4)));

  in = StepInputs{};
  in.per_gpu_batch = 32;
  in.pixels_per_sample = 3.0 * 224 * 224;  // 32 x 150528 x 3.3e-8 s / 4 workers = 39.7 ms > the work
  const RooflineStep loading = roofline_step(test_model(), in, test_gpu(), test_time(), test_power());
  CHECK(loading.data_s == Approx(32 * 150528 * 3.3e-8 / 4));
  CHECK(loading.step_s == Approx(soft(loading.work_s, loading.data_s)));
  CHECK(loading.io_stall_s == Approx(loading.step_s - loading.work_s));

  in = StepInputs{};
  in.per_gpu_batch = 16;
  in.work_scale = 2.0;  // twice the per-sample work: the FLOPs and activation bytes of batch 32
  in.pixels_per_sample = 1.0;
  const RooflineStep scaled = roofline_step(test_model(), in, test_gpu(), test_time(), test_power());
  for (std::size_t c = 0; c < kOpClasses; ++c) CHECK(scaled.class_s[c] == Approx(eager.class_s[c]));
  CHECK(scaled.launch_s == Approx(eager.launch_s));
  CHECK(scaled.data_s == Approx(16 * (1.0 * 3.3e-8 + test_time().data_s_per_sample) / 4));  // 16 loaded

  in = StepInputs{};
  in.per_gpu_batch = 32;
  in.power_limit_W = 150.0;  // below the full-clock draw: the clock model's stretch, drawing the limit
  const RooflineStep capped = roofline_step(test_model(), in, test_gpu(), test_time(), test_power());
  REQUIRE(eager.power_W > 150.0);
  CHECK(capped.power_W == 150.0);
  CHECK(capped.stretch == Approx(clock_model().stretch(eager.power_W, 150.0, 300.0)));
  CHECK(capped.work_s == Approx(eager.full_clock_s * capped.stretch));
}

TEST_CASE("A tiny step sits near the resident floor, a large one near saturation", "[models][roofline]") {
  StepInputs in;
  in.per_gpu_batch = 1.0 / 1024;  // almost no work: launches dominate
  const RooflineStep tiny = roofline_step(test_model(), in, test_gpu(), test_time(), test_power());
  CHECK(tiny.achieved < 0.05);
  CHECK(tiny.power_W < 30.0 + 0.25 * 240.0);
  in.per_gpu_batch = 4096;
  const RooflineStep big = roofline_step(test_model(), in, test_gpu(), test_time(), test_power());
  CHECK(big.achieved > 0.95);
  CHECK(big.power_W > 0.97 * 270.0);
  // A measured resident power in the preset wins over the rule.
  GpuHardware g = test_gpu();
  g.resident_W = 42.0;
  CHECK(resident_floor(g, test_power()) == 42.0);
  g.resident_W = 0.0, g.memory_type = "gddr";
  CHECK(resident_floor(g, test_power()) == Approx(test_power().floor_gddr * 300.0));
}

TEST_CASE("A model known by FLOPs only gets the generic split", "[models][roofline]") {
  ModelCount m;
  m.forward_flops = 2e9;
  m.params = 5e6;
  m.weight_layers = 50;
  m.activation_elements = 1e7;
  const auto ops = generic_ops(m);
  CHECK(ops[0].flops == 2e9);
  CHECK(ops[0].bytes == 8e7);
  CHECK(ops[0].weight_bytes == 2e7);
  CHECK(ops[0].kernels == 50);
  CHECK(ops[2].bytes == 1.6e8);
  CHECK(ops[2].kernels == 100);
  CHECK(ops[1].flops == 0.0);
  CHECK(ops[3].flops == 0.0);
}

TEST_CASE("An unseen family takes the median family factor, and the GEMM ratio moves matmul only",
          "[models][roofline]") {
  // Odd count: the middle value; even: the geometric mean of the middle two; none: 1.
  CHECK(family_factor({{"a", 0.3}, {"b", 1.2}, {"c", 1.5}}, "testarch") == Approx(1.2));
  CHECK(family_factor({{"a", 0.3}, {"b", 1.0}, {"c", 1.44}, {"d", 2.0}}, "testarch") == Approx(1.2));
  CHECK(family_factor({}, "testarch") == 1.0);
  CHECK(family_factor({{"testarch", 0.7}, {"b", 2.0}}, "testarch") == 0.7);

  StepInputs in;
  in.per_gpu_batch = 32;
  RooflineConstants t = test_time();
  // testarch unseen among {0.5, 1.2, 8}: compute x 1.2 (median), memory x 0.5 (median of 0.25, 0.5, 4).
  t.family_compute = {{"a", 0.5}, {"b", 1.2}, {"c", 8.0}};
  t.family_memory = {{"a", 0.25}, {"b", 0.5}, {"c", 4.0}};
  const RooflineStep s = roofline_step(test_model(), in, test_gpu(), t, test_power());
  // tensor: 9.6e10 FLOP at 0.5 x 1.2 x 10 TFLOP/s = 16 ms; 108 MB at 0.8 x 0.5 TB/s = 0.27 ms.
  CHECK(s.class_s[0] == Approx(soft(1.6e-2, 2.7e-4)));
  // vector: 9.6e8 FLOP at 0.25 x 1.2 x 10 TFLOP/s = 0.32 ms; 384 MB at 0.4 TB/s = 0.96 ms.
  CHECK(s.class_s[1] == Approx(soft(3.2e-4, 9.6e-4)));

  // The family's GEMM ratio 1.5 multiplies the tensor class's efficiency only: 9.6e10 FLOP at 0.5 x 1.2 x
  // 1.5 x 10 TFLOP/s = 10.67 ms; vector and memory classes unchanged.
  t.family_gemm = {{"testarch", 1.5}};
  const RooflineStep g = roofline_step(test_model(), in, test_gpu(), t, test_power());
  CHECK(g.class_s[0] == Approx(soft(9.6e-2 / 9.0, 2.7e-4)));
  CHECK(g.class_s[1] == Approx(s.class_s[1]));
  CHECK(g.class_s[2] == Approx(s.class_s[2]));
  // Another family's ratio does nothing here.
  t.family_gemm = {{"b", 1.5}};
  CHECK(roofline_step(test_model(), in, test_gpu(), t, test_power()).class_s[0] == Approx(s.class_s[0]));
}
