// GEMM efficiency by size: the NeuSight per-operator reader (shapes and FLOPs by hand), the curve fit on
// kernels made from a known curve, the class efficiency of mixed GEMMs, the built-in curves against a refit
// on the shared data, and the roofline's use of a caller's GEMM efficiency.
#include "fleetwatt/models/fit/gemm_efficiency.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models;
using fleetwatt::core::ConfigError;
using fleetwatt::jobs::Precision;

namespace {

const char* const kHeader = "op,target,input_shapes,output_shape,latency,fw_latency,bw_latency,dtype\n";

std::filesystem::path write_labels(const fleetwatt::test::TempDir& dir, const std::string& rows) {
  std::filesystem::create_directories(dir / "NVIDIA_A100-PCIE-40GB");
  return dir.write("NVIDIA_A100-PCIE-40GB/model-train-512-16.csv", std::string(kHeader) + rows);
}

}  // namespace

TEST_CASE("NeuSight operator rows: addmm, batched matmul and linear modules give M, N, K and FLOPs",
          "[models][gemm]") {
  fleetwatt::test::TempDir dir;
  write_labels(dir,
               "call_function,<built-in method addmm of type object at 0x1>,\"[[3840], [4096, 1280], [1280, "
               "3840]]\",\"(4096, 3840)\",7.5,5.0,2.5,torch.float32\n"
               "call_function,<built-in function add>,\"[[16, 512], [1]]\",\"(16, 512)\",0.01,0.01,0,"
               "torch.float32\n"
               "call_function,<built-in method matmul of type object at 0x1>,\"[[16, 16, 512, 64], [16, 16, "
               "64, 512]]\",\"(16, 16, 512, 512)\",0.5,0.5,0,torch.float32\n"
               "call_function,<built-in method matmul of type object at 0x1>,\"[[16, 64], [64]]\",\"(16,)\","
               "0.01,0.01,0,torch.float32\n"
               "call_module,bert.encoder.layer.0.attention.self.query,\"[[16, 512, 1024]]\",\"(16, 512, "
               "1024)\",1,1,0,torch.float32\n"
               "call_module,bert.encoder.layer.0.attention.output.LayerNorm,\"[[16, 512, 1024]]\",\"(16, "
               "512, 1024)\",1,1,0,torch.float32\n");
  const auto s = read_neusight_gemms(dir.path());
  // The element-wise add, the matrix-vector product and the LayerNorm module are not GEMMs.
  REQUIRE(s.size() == 4);
  // addmm: bias, [4096 x 1280] @ [1280 x 3840]: forward 2 x 4096 x 3840 x 1280 = 40,265,318,400 FLOPs in
  // 5 ms; backward twice that (input and weight gradients) in 2.5 ms.
  CHECK(s[0].m == 4096.0);
  CHECK(s[0].n == 3840.0);
  CHECK(s[0].k == 1280.0);
  CHECK(s[0].min_dim() == 1280.0);
  CHECK(s[0].flops == 40265318400.0);
  CHECK(s[0].seconds == Approx(5e-3));
  CHECK_FALSE(s[0].backward);
  CHECK(s[1].backward);
  CHECK(s[1].flops == 80530636800.0);
  CHECK(s[1].seconds == Approx(2.5e-3));
  // The A100 PCIe's FP32 peak, 19.5 TFLOP/s: 40.27e9 / (5e-3 x 19.5e12) = 0.41298 of it.
  CHECK(s[0].gpu == "a100-pcie-40gb");
  CHECK(s[0].arch == "ampere");
  CHECK(s[0].peak_flops == Approx(19.5e12));
  CHECK(s[0].efficiency() == Approx(40265318400.0 / (5e-3 * 19.5e12)));
  // matmul of 16 x 16 batched [512 x 64] @ [64 x 512]: 2 x 256 x 512 x 512 x 64 = 8,589,934,592 FLOPs.
  CHECK(s[2].batch == 256.0);
  CHECK(s[2].min_dim() == 64.0);
  CHECK(s[2].flops == 8589934592.0);
  CHECK_FALSE(s[2].backward);  // an inference-style row: no backward latency
  // nn.Linear query: [16, 512, 1024] -> [.., 1024]: M = 8,192 tokens, 2 x 8192 x 1024 x 1024 FLOPs.
  CHECK(s[3].m == 8192.0);
  CHECK(s[3].flops == 17179869184.0);
}

TEST_CASE("A malformed operator row is a located error", "[models][gemm]") {
  fleetwatt::test::TempDir dir;
  write_labels(dir,
               "call_function,<built-in method addmm of type object at 0x1>,\"[[3840], [4096, "
               "1280]]\",\"(4096, 3840)\",1,1,0,torch.float32\n");
  try {
    (void)read_neusight_gemms(dir.path());
    FAIL("no error");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK(what.find("model-train-512-16.csv:2:") != std::string::npos);
    CHECK(what.find("input_shapes") != std::string::npos);
  }
  fleetwatt::test::TempDir dir2;
  write_labels(dir2, "call_module,m.fc1,\"[[4, 8]]\",\"(4, 16)\",1,x,0,torch.float32\n");
  CHECK_THROWS_AS(read_neusight_gemms(dir2.path()), ConfigError);
}

TEST_CASE("The curve fit recovers the curve its kernels were timed with", "[models][gemm]") {
  // Kernels timed exactly as eta(d) = 0.7 d / (d + 10^1.5) of a 10 TFLOP/s peak: the fit's grid holds
  // d_half = 10^(60/40) and eta_max follows in closed form, so both come back to rounding.
  const double d_half = std::pow(10.0, 1.5);
  std::vector<GemmSample> kernels;
  for (const double d : {8.0, 32.0, 128.0, 512.0, 2048.0, 8192.0}) {
    GemmSample s;
    s.m = d, s.n = 4.0 * d, s.k = 2.0 * d;
    s.flops = 2.0 * s.m * s.n * s.k, s.peak_flops = 1e13;
    s.seconds = s.flops / (0.7 * d / (d + d_half) * s.peak_flops);
    kernels.push_back(s);
  }
  std::vector<const GemmSample*> ptrs;
  for (const auto& k : kernels) ptrs.push_back(&k);
  const GemmCurve c = fit_gemm_curve(ptrs);
  CHECK(c.eta_max == Approx(0.7).epsilon(1e-9));
  CHECK(c.d_half == Approx(d_half).epsilon(1e-9));
  CHECK(c.samples == 6);
  CHECK(c.eta(d_half) == Approx(0.35));
  CHECK(c.eta(0.0) == Approx(0.7));  // an unknown size: the large-GEMM figure
}

TEST_CASE("A class of mixed GEMMs runs at its FLOP-weighted harmonic efficiency", "[models][gemm]") {
  // eta(100) = 0.8 x 100 / 200 = 0.4 and eta(300) = 0.8 x 300 / 400 = 0.6: 1 and 3 units of FLOPs take
  // 1 / 0.4 + 3 / 0.6 = 7.5 units at peak, so the class runs at 4 / 7.5 = 0.5333.
  GemmCurve c;
  c.eta_max = 0.8, c.d_half = 100.0;
  CHECK(class_gemm_efficiency(c, {{100.0, 1.0}, {300.0, 3.0}}) == Approx(4.0 / 7.5));
  CHECK(class_gemm_efficiency(c, {}) == Approx(0.8));
}

TEST_CASE("The roofline runs a matmul class at the caller's GEMM efficiency", "[models][gemm]") {
  // One compute-bound tensor class: 1e15 FLOPs per sample, few bytes. At efficiency 0.5 of the H100's
  // 989.4 TFLOP/s BF16 peak it takes 1e15 / (0.5 x 989.4e12) = 2.0214 s (the soft knee adds nothing when
  // the memory term is 1e-6 of it); at 0.25 twice that.
  ModelCount m;
  m.family = ModelFamily::transformer;
  auto& t = m.ops[static_cast<std::size_t>(OpClass::tensor)];
  t.flops = 1e15, t.bytes = 1e6, t.kernels = 1.0;
  m.forward_flops = 1e15;
  StepInputs in;
  in.pass_factor = 1.0, in.updates_weights = false, in.host_loading = false;
  in.precision = Precision::bf16;
  const GpuHardware& gpu = gpu_preset("h100-sxm");
  const RooflineConstants tc;
  const UtilisationPowerConstants pc;
  in.gemm_efficiency[static_cast<std::size_t>(OpClass::tensor)] = 0.5;
  const double half = roofline_step(m, in, gpu, tc, pc).class_s[static_cast<std::size_t>(OpClass::tensor)];
  CHECK(half == Approx(1e15 / (0.5 * 989.4e12)).epsilon(1e-6));
  in.gemm_efficiency[static_cast<std::size_t>(OpClass::tensor)] = 0.25;
  CHECK(roofline_step(m, in, gpu, tc, pc).class_s[static_cast<std::size_t>(OpClass::tensor)] ==
        Approx(2.0 * half).epsilon(1e-6));
  // 0: the fitted constant (eta_tensor x half_tensor_factor here, no hopper factor in the defaults).
  in.gemm_efficiency = {};
  CHECK(roofline_step(m, in, gpu, tc, pc).class_s[static_cast<std::size_t>(OpClass::tensor)] ==
        Approx(1e15 / (tc.eta[0] * tc.half_tensor_factor * 989.4e12)).epsilon(1e-6));
}

TEST_CASE("The built-in GEMM curves are the fit of NeuSight's kernels and the smaller dimension wins",
          "[models][gemm]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto kernels = read_neusight_gemms(data / "neusight-asplos25/label");
  const GemmEfficiencyFit fit = fit_gemm_efficiency(kernels);
  // Regeneration (tools/scripts/fit-gemm-efficiency.sh): write the fit where asked.
  if (const char* out = std::getenv("FLEETWATT_GEMM_FIT_OUT"))
    std::ofstream(out) << format_gemm_efficiency(fit);
  const GemmEfficiencyFit& built_in = default_gemm_efficiency();
  std::string report = fit.provenance + "\n";
  for (const auto& [arch, c] : fit.family)
    report += fmt::format("  {:<8} eta_max {:.3f} d_half {:.1f} ({} kernels)\n", arch, c.eta_max, c.d_half,
                          c.samples);
  double loo = 0.0, loo_flops = 0.0;
  for (const auto& [g, e] : fit.loo_error) {
    loo += e / fit.loo_error.size(), loo_flops += fit.loo_error_flops_form.at(g) / fit.loo_error.size();
    report +=
        fmt::format("  left out {:<16} {:.3f} (FLOPs form {:.3f})\n", g, e, fit.loo_error_flops_form.at(g));
  }
  WARN(report);
  // 977 kernels (forward and backward passes) of the 9 GPUs with per-operator CSVs.
  CHECK(kernels.size() == 977);
  CHECK(fit.loo_error.size() == 9);
  // The form in use predicts left-out GPUs better than a fixed time per kernel (the FLOPs form).
  CHECK(loo < loo_flops);
  // The built-in file is this fit (6 significant digits).
  REQUIRE(built_in.family.size() == fit.family.size());
  CHECK(built_in.pooled.eta_max == Approx(fit.pooled.eta_max).epsilon(1e-5));
  CHECK(built_in.pooled.d_half == Approx(fit.pooled.d_half).epsilon(1e-5));
  for (const auto& [arch, c] : fit.family) {
    CHECK(built_in.curve(arch).eta_max == Approx(c.eta_max).epsilon(1e-5));
    CHECK(built_in.curve(arch).d_half == Approx(c.d_half).epsilon(1e-5));
  }
  CHECK(format_gemm_efficiency(parse_gemm_efficiency(format_gemm_efficiency(fit), "x")) ==
        format_gemm_efficiency(fit));
}

TEST_CASE("Tensor-core GEMMs take the curve moved with their path's ridge point", "[models][gemm]") {
  GemmCurve fp32;
  fp32.eta_max = 0.9, fp32.d_half = 40.0;
  // A100 SXM: BF16 312 TFLOP/s over FP32 19.5 = 16, 2-byte operands over 4: d_half x 8 = 320.
  const GpuHardware& a100 = gpu_preset("a100-sxm-80gb");
  const GemmCurve bf16 = precision_curve(fp32, a100, Precision::bf16);
  CHECK(bf16.d_half == Approx(320.0));
  CHECK(bf16.eta_max == 0.9);
  // TF32: 156 / 19.5 = 8 at 4 bytes: x 8 as well; FP32 unchanged.
  CHECK(precision_curve(fp32, a100, Precision::tf32).d_half == Approx(320.0));
  CHECK(precision_curve(fp32, a100, Precision::fp32).d_half == 40.0);
  // H100 SXM: 989.4 / 66.9 x 1/2 = 7.3946: d_half 295.78.
  CHECK(precision_curve(fp32, gpu_preset("h100-sxm"), Precision::bf16).d_half ==
        Approx(40.0 * 989.4 / 66.9 / 2.0));
}
