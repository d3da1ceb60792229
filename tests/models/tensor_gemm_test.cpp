// Tensor-core GEMM time: the vidur, XLA-table and MAMF readers (shapes, FLOPs and figures by hand), the fit
// recovering the parameters its kernels were timed with, the rule that gives any GPU its efficiency, the
// time of one GEMM by hand, and the built-in fit against a refit on the shared data with its
// leave-one-GPU-out errors.
#include "fleetwatt/models/fit/tensor_gemm_fit.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models;
using fleetwatt::core::ConfigError;
using fleetwatt::jobs::Precision;

namespace {

const char* const kVidurHeader =
    "time_stats.attn_pre_proj.median,time_stats.attn_post_proj.median,time_stats.mlp_up_proj.median,"
    "time_stats.mlp_down_proj.median,n_head,n_kv_head,n_embd,n_expanded_embd,use_gated_mlp,num_tokens,"
    "num_tensor_parallel_workers\n";

std::filesystem::path write_vidur(const fleetwatt::test::TempDir& dir, const std::string& gpu,
                                  const std::string& rows) {
  std::filesystem::create_directories(dir / (gpu + "/meta-llama/model"));
  return dir.write(gpu + "/meta-llama/model/mlp.csv", std::string(kVidurHeader) + rows);
}

/// The error message of a call that must throw ConfigError.
template <class F>
std::string config_error(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("no ConfigError");
  return "";
}

}  // namespace

TEST_CASE("vidur rows give the four projection GEMMs of the layer's shape", "[models][tensor_gemm]") {
  fleetwatt::test::TempDir dir;
  // Llama-2-7B (32 heads of 128, no grouped KV, intermediate 11008, gated) at tp 1 and 4096 tokens, and a
  // Llama-3-8B-like layer (8 KV heads, intermediate 14336) at tp 2 and 512 tokens.
  write_vidur(dir, "a100",
              "1.911,0.611,3.3655,1.604,32,32,4096,11008,True,4096,1\n"
              "0.1,0.05,0.3,0.2,32,8,4096,14336,True,512,2\n");
  write_vidur(dir, "l4", "1,1,1,1,32,32,4096,11008,True,4096,1\n");  // no vidur GPU: skipped
  const auto s = read_vidur_gemms(dir.path());
  REQUIRE(s.size() == 8);
  // attn_pre_proj: N = (32 + 2 x 32) x 128 = 12288, K = 4096; 2 x 4096 x 12288 x 4096 = 412,316,860,416
  // FLOPs in 1.911 ms of the A100's 312 TFLOP/s.
  CHECK(s[0].gpu == "a100-sxm-80gb");
  CHECK(s[0].source == "vidur");
  CHECK(s[0].precision == Precision::fp16);
  CHECK(s[0].m == 4096.0);
  CHECK(s[0].n == 12288.0);
  CHECK(s[0].k == 4096.0);
  CHECK(s[0].flops == 412316860416.0);
  CHECK(s[0].seconds == Approx(1.911e-3));
  CHECK(s[0].peak_flops == Approx(312e12));
  CHECK(s[0].efficiency() == Approx(412316860416.0 / (1.911e-3 * 312e12)));
  CHECK(s[0].where.line == 2);
  // attn_post_proj 4096 x 4096; mlp_up_proj gate and up fused: N = 2 x 11008; mlp_down_proj K = 11008.
  CHECK((s[1].n == 4096.0 && s[1].k == 4096.0));
  CHECK((s[2].n == 22016.0 && s[2].k == 4096.0));
  CHECK(s[2].flops == 2.0 * 4096 * 22016 * 4096);
  CHECK(s[2].seconds == Approx(3.3655e-3));
  CHECK((s[3].n == 4096.0 && s[3].k == 11008.0));
  CHECK(s[3].min_dim() == 4096.0);
  // tp 2: QKV N = (32 + 16) x 128 / 2 = 3072; output K = 4096 / 2; up N = 2 x 14336 / 2; down K = 14336 / 2.
  CHECK((s[4].m == 512.0 && s[4].n == 3072.0 && s[4].k == 4096.0));
  CHECK((s[5].n == 4096.0 && s[5].k == 2048.0));
  CHECK((s[6].n == 14336.0 && s[6].k == 4096.0));
  CHECK((s[7].n == 4096.0 && s[7].k == 7168.0));
  CHECK(s[7].where.line == 3);

  fleetwatt::test::TempDir bad;
  write_vidur(bad, "h100", "1,1,1,1,32,32,4096,11008,True,4096,1\n1,1,x,1,32,32,4096,11008,True,4096,1\n");
  const std::string what = config_error([&] { (void)read_vidur_gemms(bad.path()); });
  CHECK(what.find("mlp.csv:3:") != std::string::npos);
  CHECK(what.find("time_stats.mlp_up_proj.median") != std::string::npos);
}

TEST_CASE("XLA's GEMM table gives each shape's time per data type", "[models][tensor_gemm]") {
  fleetwatt::test::TempDir dir;
  const auto file =
      dir.write("table.h",
                "// header\n"
                "constexpr char kDefaultMatmulPTable[] = R\"pb(\n"
                "  entries {\n"
                "    key: \"sm_90\"\n"
                "    value {\n"
                "      entries {\n"
                "        b: 2\n"
                "        m: 256\n"
                "        n: 512\n"
                "        k: 1024\n"
                "        flops { key: \"bf16xbf16->bf16\" value: 500000000000000 }\n"
                "        flops { key: \"f32xf32->f32\" value: 250000000000000 }\n"
                "        flops { key: \"f8e4m3fnxf8e4m3fn->bf16\" value: 1000000000000000 }\n"
                "        flops { key: \"f8e4m3fnxf8e5m2->bf16\" value: 1000000000000000 }\n"
                "      }\n"
                "    }\n"
                "  }\n"
                "  entries {\n"
                "    key: \"gfx942\"\n"
                "    value {\n"
                "      entries {\n"
                "        b: 1\n"
                "        m: 4096\n"
                "        n: 4096\n"
                "        k: 4096\n"
                "        flops {\n"
                "          key: \"f32xf32->f32\"\n"
                "          value: 100000000000000\n"
                "        }\n"
                "        flops {\n"
                "          key: \"f8e4m3fnuzxf8e4m3fnuz->bf16\"\n"
                "          value: 1000000000000000\n"
                "        }\n"
                "      }\n"
                "    }\n"
                "  }\n"
                "  entries {\n"
                "    key: \"gfx950\"\n"
                "    value { entries { b: 1 m: 256 n: 256 k: 256 flops { key: \"bf16xbf16->bf16\" "
                "value: 1 } } }\n"
                "  }\n"
                ")pb\";\n");
  const auto s = read_openxla_gemms(file);
  // H100: BF16, TF32 and e4m3 x e4m3 (the mixed e4m3 x e5m2 is not read); MI300X: its fnuz e4m3 (its f32
  // rows are not read); MI355X (gfx950) has no preset.
  REQUIRE(s.size() == 4);
  // 2 x 2 x 256 x 512 x 1024 = 536,870,912 FLOPs at 500 TFLOP/s: 1.0737 us.
  CHECK(s[0].gpu == "h100-sxm");
  CHECK(s[0].source == "openxla");
  CHECK(s[0].precision == Precision::bf16);
  CHECK(s[0].batch == 2.0);
  CHECK(s[0].flops == 536870912.0);
  CHECK(s[0].seconds == Approx(536870912.0 / 5e14));
  CHECK(s[0].peak_flops == Approx(989.4e12));
  CHECK(s[0].where.line == 11);
  CHECK(s[1].precision == Precision::tf32);
  CHECK(s[1].seconds == Approx(536870912.0 / 2.5e14));
  CHECK(s[1].peak_flops == Approx(494.7e12));
  CHECK(s[2].precision == Precision::fp8);
  CHECK(s[2].peak_flops == Approx(1978.9e12));
  CHECK(s[3].gpu == "mi300x");
  CHECK(s[3].precision == Precision::fp8);
  CHECK(s[3].seconds == Approx(2.0 * 4096 * 4096 * 4096 / 1e15));
  CHECK(s[3].peak_flops == Approx(2614.9e12));
  CHECK(s[3].where.line == 31);

  const auto bad =
      dir.write("bad.h",
                "R\"pb(\n  entries {\n    key: \"sm_90\"\n    value {\n      entries {\n        b: 1\n"
                "        m: x\n        n: 1\n        k: 1\n      }\n    }\n  }\n)pb\"\n");
  const std::string what = config_error([&] { (void)read_openxla_gemms(bad); });
  CHECK(what.find("bad.h:7:") != std::string::npos);
  CHECK(what.find(": m:") != std::string::npos);
  const auto open = dir.write("open.h", "R\"pb(\n  entries {\n    key: \"sm_90\"\n)pb\"\n");
  CHECK(config_error([&] { (void)read_openxla_gemms(open); }).find("open.h:") != std::string::npos);
}

TEST_CASE("The MAMF table gives each preset's best BF16 and FP8 rate", "[models][tensor_gemm]") {
  fleetwatt::test::TempDir dir;
  const auto file = dir.write("README.md",
                              "## Other\n| Accelerator | MAMF | Theory |\n| NVIDIA H100 SXM | 1 | 2 |\n"
                              "#### Maximum Achievable Matmul FLOPS comparison table\n\n**BF16**:\n\n"
                              "| Accelerator | MAMF | Theory | Efficiency | Notes |\n"
                              "| :-- | --: | --: | --: | :-- |\n"
                              "| Intel Gaudi 2 | 418.7 | 432 | 96.9% | |\n"
                              "| NVIDIA A100 SXM | 271.2 | 312 | 86.9% | |\n"
                              "| NVIDIA H100 SXM | 794.5 | 989 | 80.3% | H200 is the same |\n"
                              "| | | | | |\n\n"
                              "**FP8 (`float8_e4m3fn`)**:\n\n"
                              "| Accelerator | MAMF | Theory | Efficiency | Notes |\n"
                              "| :-- | --: | --: | --: | :-- |\n"
                              "| NVIDIA H200 SXM | 1453.4 | 1979 | 73.4% | |\n"
                              "| AMD MI300X | | 2600 | | |\n"
                              "#### Next section\n| NVIDIA B200 SXM | 1 | 2 | | |\n");
  const auto m = read_mamf(file);
  // Gaudi has no preset, MI300X no FP8 figure; the A100 SXM row stands for both SXM presets and the H100
  // row's note for the H200 in BF16.
  REQUIRE(m.size() == 5);
  CHECK(m[0].gpu == "a100-sxm-80gb");
  CHECK(m[1].gpu == "a100-sxm4-40gb");
  CHECK(m[1].flops == Approx(271.2e12));
  CHECK(m[2].gpu == "h100-sxm");
  CHECK(m[2].accelerator == "NVIDIA H100 SXM");
  CHECK(m[2].flops == Approx(794.5e12));
  CHECK(m[2].peak_flops == Approx(989e12));
  CHECK(m[3].gpu == "h200-sxm");
  CHECK(m[3].precision == Precision::fp8);
  CHECK(m[3].flops == Approx(1453.4e12));
  CHECK(m[4].gpu == "h200-sxm");
  CHECK(m[4].precision == Precision::bf16);
  CHECK(m[4].flops == Approx(794.5e12));

  const auto bad =
      dir.write("bad.md",
                "#### Maximum Achievable Matmul FLOPS comparison table\n**BF16**:\n"
                "| Accelerator | MAMF | Theory |\n| :-- | --: | --: |\n| NVIDIA B200 SXM | 17x | 2250 |\n");
  const std::string what = config_error([&] { (void)read_mamf(bad); });
  CHECK(what.find("bad.md:5:21") != std::string::npos);
  CHECK(what.find("MAMF") != std::string::npos);
  CHECK_THROWS_AS(read_mamf(dir.write("none.md", "# nothing\n")), ConfigError);
}

TEST_CASE("The tensor GEMM fit recovers the parameters its kernels were timed with",
          "[models][tensor_gemm]") {
  // Kernels timed exactly by t = F / (eta P) (1 + d_half / d) + t0 with d_half = 10^(86/40) (on the fit's
  // grid), eta 0.8 (A100), 0.7 (H100), 0.6 (B200), t0 8 us (vidur) and 5 us (openxla); the H100 in both.
  const double d_half = std::pow(10.0, 86.0 / 40.0);
  const std::map<std::string, double> eta{{"a100-sxm-80gb", 0.8}, {"h100-sxm", 0.7}, {"b200", 0.6}};
  const std::map<std::string, double> t0{{"vidur", 8e-6}, {"openxla", 5e-6}};
  std::vector<TensorGemmSample> samples;
  for (const auto& [gpu, source] : std::vector<std::pair<std::string, std::string>>{
           {"a100-sxm-80gb", "vidur"}, {"h100-sxm", "vidur"}, {"h100-sxm", "openxla"}, {"b200", "openxla"}})
    for (const double m : {16.0, 128.0, 1024.0, 4096.0})
      for (const double nk : {256.0, 2048.0, 8192.0}) {
        TensorGemmSample s;
        s.gpu = gpu, s.source = source, s.precision = source == "vidur" ? Precision::fp16 : Precision::bf16;
        s.m = m, s.n = nk, s.k = 2.0 * nk;
        s.flops = 2.0 * s.m * s.n * s.k;
        s.peak_flops = gpu_preset(gpu).fp16_flops;
        s.seconds = s.flops / (eta.at(gpu) * s.peak_flops) * (1.0 + d_half / s.min_dim()) + t0.at(source);
        samples.push_back(s);
        // A repeat twice as slow and one twice as fast: the median of the three is the exact time.
        TensorGemmSample slow = s, fast = s;
        slow.seconds *= 2.0, fast.seconds *= 0.5;
        samples.push_back(slow), samples.push_back(fast);
      }
  // FP8 kernels far off the curve: not fitted.
  TensorGemmSample fp8 = samples.front();
  fp8.precision = Precision::fp8, fp8.seconds *= 1e-3;
  samples.push_back(fp8);
  // MAMF / peak: A100 0.869, H100 0.8, B200 0.75 in BF16; H100 0.72, B200 0.69 in FP8.
  const auto figure = [](const std::string& gpu, Precision p, double fraction) {
    MamfFigure f;
    f.gpu = gpu, f.precision = p;
    f.flops = fraction * (p == Precision::fp8 ? gpu_preset(gpu).fp8_flops : gpu_preset(gpu).fp16_flops);
    return f;
  };
  const std::vector<MamfFigure> mamf{
      figure("a100-sxm-80gb", Precision::bf16, 0.869), figure("h100-sxm", Precision::bf16, 0.8),
      figure("b200", Precision::bf16, 0.75), figure("h100-sxm", Precision::fp8, 0.72),
      figure("b200", Precision::fp8, 0.69)};
  const TensorGemmFit fit = fit_tensor_gemm(samples, mamf);
  CHECK(fit.d_half == Approx(d_half).epsilon(1e-9));
  REQUIRE(fit.eta_max.size() == 3);
  for (const auto& [gpu, e] : eta) CHECK(fit.eta_max.at(gpu) == Approx(e).epsilon(1e-9));
  CHECK(fit.t0_by_source.at("vidur") == Approx(8e-6).epsilon(1e-9));
  CHECK(fit.t0_by_source.at("openxla") == Approx(5e-6).epsilon(1e-9));
  CHECK(fit.t0_s == Approx(8e-6).epsilon(1e-9));  // the vidur source's
  // eta / (MAMF / peak): 0.8 / 0.869 = 0.9206, 0.7 / 0.8 = 0.875, 0.6 / 0.75 = 0.8: median 0.875.
  CHECK(fit.mamf_ratio == Approx(0.875));
  // FP8 over BF16 MAMF fractions: 0.72 / 0.8 = 0.9 and 0.69 / 0.75 = 0.92: median 0.91.
  CHECK(fit.fp8_ratio == Approx(0.91));
  CHECK(fit.mamf_bf16.at("b200") == Approx(0.75));
  // Each GPU left out takes its MAMF figure times the others' ratio: the A100 at 0.869 x median(0.875, 0.8)
  // = 0.7278 of its peak instead of 0.8, so its kernels come out up to 0.8 / 0.7278 slower.
  REQUIRE(fit.loo_error.size() == 3);
  for (const auto& [gpu, r] : fit.rule) CHECK(r == "MAMF");
  CHECK(fit.loo_error.at("a100-sxm-80gb") > 0.0);
  CHECK(fit.loo_error.at("a100-sxm-80gb") < std::log(0.8 / (0.869 * 0.8375)) + 1e-9);
  // The file reads back.
  TensorGemmFit no_rule = fit;
  no_rule.rule.clear();
  CHECK(format_tensor_gemm(parse_tensor_gemm(format_tensor_gemm(fit), "x")) == format_tensor_gemm(no_rule));
}

TEST_CASE("A GPU's tensor GEMM efficiency: fitted, MAMF, family, pooled, FP8 and FP32",
          "[models][tensor_gemm]") {
  TensorGemmFit fit;
  fit.eta_max = {{"a100-sxm-80gb", 0.8}, {"a40", 0.7}, {"h100-sxm", 0.81}, {"b200", 0.74}, {"mi300x", 0.4}};
  fit.mamf_bf16 = {{"h200-sxm", 0.803}, {"gb200", 0.729}};
  fit.mamf_fp8 = {{"h100-sxm", 0.709}};
  fit.mamf_ratio = 0.9, fit.fp8_ratio = 0.95;
  const auto eff = [&](const char* id, Precision p) {
    return tensor_gemm_efficiency(fit, gpu_preset(id), p);
  };
  CHECK(eff("h100-sxm", Precision::bf16).eta_max == 0.81);
  CHECK(eff("h100-sxm", Precision::bf16).rule == "fitted");
  CHECK(eff("h100-sxm", Precision::tf32).eta_max == 0.81);
  // H200: no kernels, a MAMF figure: 0.9 x 0.803.
  CHECK(eff("h200-sxm", Precision::bf16).eta_max == Approx(0.7227));
  CHECK(eff("h200-sxm", Precision::bf16).rule == "MAMF");
  // H100 PCIe: neither; its family's fitted GPU (the H100 SXM). A800: the Ampere median of 0.8 and 0.7.
  CHECK(eff("h100-pcie", Precision::fp16).eta_max == 0.81);
  CHECK(eff("h100-pcie", Precision::fp16).rule == "family hopper");
  CHECK(eff("a800", Precision::bf16).eta_max == Approx(0.75));
  // MI250 (cdna2, no fitted GPU) and a GPU of no known family: the median of all five, 0.74.
  CHECK(eff("mi250", Precision::bf16).eta_max == 0.74);
  CHECK(eff("mi250", Precision::bf16).rule == "pooled");
  GpuHardware unknown = gpu_preset("h100-sxm");
  unknown.id = "custom", unknown.arch = "";
  CHECK(tensor_gemm_efficiency(fit, unknown, Precision::bf16).rule == "pooled");
  // FP8: the H100's MAMF FP8 figure, 0.9 x 0.709; the B200's fitted value x 0.95; the A100 has no FP8 path
  // and runs FP8 at its 16-bit rate.
  CHECK(eff("h100-sxm", Precision::fp8).eta_max == Approx(0.6381));
  CHECK(eff("h100-sxm", Precision::fp8).rule == "MAMF");
  CHECK(eff("b200", Precision::fp8).eta_max == Approx(0.703));
  CHECK(eff("b200", Precision::fp8).rule == "fitted x fp8_ratio");
  CHECK(eff("gb200", Precision::fp8).eta_max == Approx(0.9 * 0.729 * 0.95));
  CHECK(eff("gb200", Precision::fp8).rule == "MAMF x fp8_ratio");
  CHECK(eff("a100-sxm-80gb", Precision::fp8).eta_max == 0.8);
  CHECK(eff("a100-sxm-80gb", Precision::fp8).rule.find("no FP8 path") != std::string::npos);
  CHECK_THROWS_AS(eff("h100-sxm", Precision::fp32), std::invalid_argument);

  // The built-in fit: the H200 takes the H100's BF16 MAMF figure (the table says "H200 is the same").
  const TensorGemmFit& built_in = default_tensor_gemm();
  const auto h200 = tensor_gemm_efficiency(built_in, gpu_preset("h200-sxm"), Precision::bf16);
  CHECK(h200.rule == "MAMF");
  CHECK(h200.eta_max == Approx(built_in.mamf_ratio * 794.5e12 / 989.4e12).epsilon(1e-5));
}

TEST_CASE("One GEMM's time by hand", "[models][tensor_gemm]") {
  TensorGemmFit fit;
  fit.eta_max = {{"h100-sxm", 0.8}};
  fit.d_half = 100.0, fit.t0_s = 5e-6;
  const GpuHardware& h100 = gpu_preset("h100-sxm");
  // 4096 x 8192 x 1024: 68,719,476,736 FLOPs at 0.8 x 989.4 TFLOP/s = 86.82 us, x (1 + 100 / 1024) =
  // 95.30 us, + 5 us.
  const double at_eta = 68719476736.0 / (0.8 * 989.4e12);
  CHECK(tensor_gemm_seconds(fit, h100, Precision::bf16, 4096, 8192, 1024) ==
        Approx(at_eta * (1.0 + 100.0 / 1024.0) + 5e-6));
  CHECK(tensor_gemm_seconds(fit, h100, Precision::bf16, 4096, 8192, 1024, 2.0) ==
        Approx(2.0 * at_eta * (1.0 + 100.0 / 1024.0) + 5e-6));
  // TF32: the same efficiency of half the peak.
  CHECK(tensor_gemm_seconds(fit, h100, Precision::tf32, 4096, 8192, 1024) ==
        Approx(68719476736.0 / (0.8 * 494.7e12) * (1.0 + 100.0 / 1024.0) + 5e-6));
  CHECK(tensor_gemm_seconds(fit, h100, Precision::bf16, 0, 8192, 1024) == 5e-6);
  CHECK_THROWS_AS(tensor_gemm_seconds(fit, h100, Precision::fp32, 1, 1, 1), std::invalid_argument);
}

TEST_CASE("A malformed tensor GEMM fit file is a located error", "[models][tensor_gemm]") {
  const std::string good =
      "provenance = \"x\"\nd_half = 147\nt0_s = 6e-6\nmamf_ratio = 0.9\nfp8_ratio = 0.95\n[eta_max]\n"
      "\"h100-sxm\" = 0.8\n";
  CHECK(parse_tensor_gemm(good, "f.toml").eta_max.at("h100-sxm") == 0.8);
  std::string over = good;
  over.replace(over.find("0.8\n"), 3, "1.5");
  const std::string what = config_error([&] { (void)parse_tensor_gemm(over, "f.toml"); });
  CHECK(what.find("f.toml:7") != std::string::npos);
  CHECK(what.find("eta_max.h100-sxm") != std::string::npos);
  // A misspelt top-level key (before the tables: after them it would be a GPU of [eta_max]).
  CHECK(config_error([&] { (void)parse_tensor_gemm("typo = 1\n" + good, "f.toml"); }).find("typo") !=
        std::string::npos);
  std::string no_half = good;
  no_half.erase(no_half.find("d_half"), 13);
  CHECK(config_error([&] { (void)parse_tensor_gemm(no_half, "f.toml"); }).find("d_half") !=
        std::string::npos);
}

TEST_CASE("The built-in tensor-core GEMM fit is the refit of vidur's and XLA's kernels",
          "[models][tensor_gemm]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  auto samples = read_vidur_gemms(data / "vidur-mlsys24/compute");
  const std::size_t vidur = samples.size();
  const auto xla = read_openxla_gemms(data / "openxla-matmul-perf/matmul_interpolator_data.h");
  samples.insert(samples.end(), xla.begin(), xla.end());
  const auto mamf = read_mamf(data / "ml-engineering-mamf/compute_accelerator_README.md");
  const TensorGemmFit fit = fit_tensor_gemm(samples, mamf);
  // Regeneration (tools/scripts/fit-tensor-gemm.sh): write the fit where asked.
  if (const char* out = std::getenv("FLEETWATT_TENSOR_GEMM_FIT_OUT"))
    std::ofstream(out) << format_tensor_gemm(fit);
  std::string report = fmt::format(
      "{}\n  d_half {:.1f}, t0 vidur {:.2f} us, openxla {:.2f} us, mamf_ratio {:.3f}, "
      "fp8_ratio {:.3f}\n",
      fit.provenance, fit.d_half, fit.t0_by_source.at("vidur") * 1e6, fit.t0_by_source.at("openxla") * 1e6,
      fit.mamf_ratio, fit.fp8_ratio);
  for (const auto& [g, e] : fit.eta_max)
    report += fmt::format("  {:<14} eta_max {:.3f}, left out {:.3f} (mean {:.3f}) by {}\n", g, e,
                          fit.loo_error.at(g), fit.loo_error_mean.at(g), fit.rule.at(g));
  WARN(report);

  // 11 vidur files of 1,044 or 1,824 rows, four GEMMs a row: 4 x (9 x 1,044 + 2 x 1,824) = 52,176.
  CHECK(vidur == 52176);
  // 375 shapes per device and data type: H100 and B200 in BF16, TF32 and FP8, MI300X in BF16 and FP8.
  std::map<std::pair<std::string, Precision>, int> per;
  for (const auto& s : xla) ++per[{s.gpu, s.precision}];
  CHECK(per.size() == 8);
  for (const auto& [key, n] : per) CHECK(n == 375);
  // MAMF: H100 BF16 794.5 of 989 TFLOP/s, B200 FP8 3432.5.
  const auto figure = [&](const char* gpu, Precision p) {
    for (const auto& f : mamf)
      if (f.gpu == gpu && f.precision == p) return f;
    FAIL("no MAMF figure for " << gpu);
    return MamfFigure{};
  };
  CHECK(figure("h100-sxm", Precision::bf16).flops == Approx(794.5e12));
  CHECK(figure("h100-sxm", Precision::bf16).peak_flops == Approx(989e12));
  CHECK(figure("b200", Precision::fp8).flops == Approx(3432.5e12));
  CHECK(figure("h200-sxm", Precision::bf16).flops == Approx(794.5e12));
  CHECK(figure("a100-pcie-80gb", Precision::bf16).flops == Approx(252.9e12));
  CHECK(figure("mi300x", Precision::bf16).flops == Approx(668.4e12));

  // The fit: d_half 10^(84/40) = 125.9 elements (least relative-error loss; a least-squares fit of ln t
  // puts it near 147), t0 7.7 us of vidur's kernels and 5.9 us of XLA's timings, the NVIDIA parts at
  // 0.74-0.81 of their peaks and the MI300X at 0.41 under XLA's untuned hipBLASLt kernels.
  CHECK(fit.eta_max.size() == 5);
  CHECK(fit.d_half == Approx(125.9).epsilon(0.001));
  CHECK(fit.t0_by_source.at("vidur") == Approx(7.71e-6).epsilon(0.01));
  CHECK(fit.t0_by_source.at("openxla") == Approx(5.90e-6).epsilon(0.01));
  CHECK(fit.eta_max.at("a100-sxm-80gb") == Approx(0.792).margin(0.005));
  CHECK(fit.eta_max.at("a40") == Approx(0.807).margin(0.005));
  CHECK(fit.eta_max.at("h100-sxm") == Approx(0.812).margin(0.005));
  CHECK(fit.eta_max.at("b200") == Approx(0.735).margin(0.005));
  CHECK(fit.eta_max.at("mi300x") == Approx(0.415).margin(0.005));
  CHECK(fit.mamf_ratio == Approx(0.929).margin(0.005));
  CHECK(fit.fp8_ratio == Approx(0.949).margin(0.005));
  // Leave-one-GPU-out guards, a little above the measured figures (0.083, 0.064, 0.056, 0.080, 0.163).
  const std::map<std::string, double> loo_limit{
      {"a100-sxm-80gb", 0.09}, {"a40", 0.075}, {"b200", 0.065}, {"h100-sxm", 0.09}, {"mi300x", 0.18}};
  for (const auto& [g, limit] : loo_limit) {
    INFO(g);
    CHECK(fit.loo_error.at(g) < limit);
  }
  CHECK(fit.rule.at("a40") == "family ampere");
  CHECK(fit.rule.at("mi300x") == "MAMF");

  // The built-in file is this fit (6 significant digits).
  const TensorGemmFit& built_in = default_tensor_gemm();
  CHECK(built_in.d_half == Approx(fit.d_half).epsilon(1e-5));
  CHECK(built_in.t0_s == Approx(fit.t0_s).epsilon(1e-5));
  CHECK(built_in.mamf_ratio == Approx(fit.mamf_ratio).epsilon(1e-5));
  CHECK(built_in.fp8_ratio == Approx(fit.fp8_ratio).epsilon(1e-5));
  REQUIRE(built_in.eta_max.size() == fit.eta_max.size());
  for (const auto& [g, e] : fit.eta_max) CHECK(built_in.eta_max.at(g) == Approx(e).epsilon(1e-5));
  REQUIRE(built_in.mamf_bf16.size() == fit.mamf_bf16.size());
  for (const auto& [g, e] : fit.mamf_bf16) CHECK(built_in.mamf_bf16.at(g) == Approx(e).epsilon(1e-5));
  REQUIRE(built_in.mamf_fp8.size() == fit.mamf_fp8.size());
  for (const auto& [g, e] : fit.loo_error) CHECK(built_in.loo_error.at(g) == Approx(e).epsilon(1e-5));
}
