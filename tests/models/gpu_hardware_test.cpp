// GPU presets: the built-in table parses, carries the datasheet figures, and user files are validated.
#include "fleetwatt/models/hardware/gpu_hardware.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "test_support.hpp"

using namespace fleetwatt::models;
using fleetwatt::jobs::ConfigError;
using fleetwatt::jobs::Precision;

TEST_CASE("Every preset the issue names is built in", "[models][presets]") {
  for (const char* id : {"h100-sxm", "h100-pcie", "a100-sxm-80gb", "a100-pcie-40gb", "a800", "v100", "p100",
                         "a40", "l40s", "rtx6000", "rtx2080ti", "rtx3090", "rtx3070"}) {
    INFO(id);
    const GpuHardware& g = gpu_preset(id);
    CHECK(g.tdp_W > g.idle_W);
    CHECK(g.idle_W > 0.0);
    CHECK(g.fp32_flops > 0.0);
    CHECK(g.memory_bytes > 0.0);
    CHECK(!g.source.empty());
  }
}

TEST_CASE("Presets carry the datasheet figures in SI units", "[models][presets]") {
  // A800 SXM 80GB: 400 W board power, 19.5 TFLOP/s FP32, 312 TFLOP/s dense BF16, 80 GiB, 2039 GB/s,
  // NVLink 400 GB/s bidirectional.
  const GpuHardware& a800 = gpu_preset("a800");
  CHECK(a800.tdp_W == 400.0);
  CHECK(a800.fp32_flops == Approx(19.5e12));
  CHECK(a800.peak_flops(Precision::bf16) == Approx(312e12));
  CHECK(a800.memory_bytes == 80.0 * 1073741824.0);
  CHECK(a800.memory_bw_Bps == Approx(2.039e12));
  CHECK(a800.nvlink_bw_Bps == Approx(200e9));
  // H100 SXM: 700 W, FP8 dense 1979 TFLOP/s (3958 with sparsity).
  CHECK(gpu_preset("h100-sxm").tdp_W == 700.0);
  CHECK(gpu_preset("h100-sxm").peak_flops(Precision::fp8) == Approx(1978.9e12));
}

TEST_CASE("A precision the GPU lacks falls back to the next slower one", "[models][presets]") {
  // The V100 has no TF32 or FP8: TF32 runs at FP32 speed, FP8 at FP16 tensor speed.
  const GpuHardware& v100 = gpu_preset("v100");
  CHECK(v100.peak_flops(Precision::tf32) == v100.fp32_flops);
  CHECK(v100.peak_flops(Precision::fp8) == v100.fp16_flops);
}

TEST_CASE("An unknown GPU id is refused with the list of known ones", "[models][presets]") {
  CHECK_THROWS_WITH(gpu_preset("h200"), Catch::Contains("unknown GPU 'h200'") && Catch::Contains("a800"));
}

TEST_CASE("Users add presets in TOML, and may redefine a built-in", "[models][presets]") {
  fleetwatt::test::TempDir dir;
  const auto file = dir.write("mine.toml", R"(
[[gpu]]
id = "mi250x-half"
name = "one GCD"
tdp_w = 280
idle_w = 45
fp32_tflops = 23.9
fp16_tflops = 191.5
memory_gib = 64
memory_bw_gbytes_per_s = 1638
pcie_gbytes_per_s = 32

[[gpu]]
id = "a800"
tdp_w = 300
idle_w = 50
fp32_tflops = 19.5
memory_gib = 80
memory_bw_gbytes_per_s = 2039
pcie_gbytes_per_s = 32
)");
  const auto mine = load_gpu_preset_file(file);
  REQUIRE(mine.size() == 2);
  CHECK(find_gpu("mi250x-half", mine).fp16_flops == Approx(191.5e12));
  CHECK(find_gpu("a800", mine).tdp_W == 300.0);
  CHECK(find_gpu("a800").tdp_W == 400.0);
  CHECK_THROWS_WITH(find_gpu("nope", mine), Catch::Contains("mi250x-half") && Catch::Contains("h100-sxm"));
}

TEST_CASE("A malformed preset names the file, line and key", "[models][presets]") {
  CHECK_THROWS_WITH(parse_gpu_presets("[[gpu]]\nid = \"x\"\ntdp_w = 300\nidle_w = 30\nfp32_tflops = -1\n"
                                      "memory_gib = 8\nmemory_bw_gbytes_per_s = 1\npcie_gbytes_per_s = 1\n",
                                      "my.toml"),
                    Catch::Contains("my.toml:5") && Catch::Contains("fp32_tflops"));
  CHECK_THROWS_WITH(parse_gpu_presets("[[gpu]]\nid = \"x\"\ntdp = 300\n", "my.toml"),
                    Catch::Contains("my.toml:3") && Catch::Contains("tdp") && Catch::Contains("tdp_w"));
  CHECK_THROWS_AS(parse_gpu_presets("[[gpu]]\nid = \"x\"\n", "my.toml"), ConfigError);
}

TEST_CASE("Every preset names a known architecture family", "[models][presets]") {
  const std::vector<std::string> known{"maxwell", "pascal",    "volta", "turing", "ampere", "ada",
                                       "hopper",  "blackwell", "cdna1", "cdna2",  "cdna3"};
  for (const auto& g : gpu_presets()) {
    INFO(g.id);
    CHECK(std::find(known.begin(), known.end(), g.arch) != known.end());
  }
  CHECK(gpu_preset("a100-sxm-80gb").arch == "ampere");
  CHECK(gpu_preset("l40s").arch == "ada");
  CHECK(gpu_preset("t4").arch == "turing");
  CHECK(gpu_preset("v100").arch == "volta");
  CHECK(gpu_preset("h100-sxm").arch == "hopper");
}

TEST_CASE("The measured GPUs' presets carry their datasheet figures", "[models][presets]") {
  struct Want {
    const char* id;
    const char* arch;
    double tdp, fp32, fp32_matrix, fp16, bw_gbs, mem_gib;
  };
  for (const Want w :
       {Want{"v100-pcie-32gb", "volta", 250, 14, 0, 112, 900, 32},
        Want{"a100-pcie-80gb", "ampere", 300, 19.5, 0, 312, 1935, 80},
        Want{"a100-sxm4-40gb", "ampere", 400, 19.5, 0, 312, 1555, 40},
        Want{"l4", "ada", 72, 30.3, 0, 121, 300, 24}, Want{"p4", "pascal", 75, 5.5, 0, 0, 192, 8},
        Want{"mi100", "cdna1", 300, 23.1, 46.1, 184.6, 1228.8, 32},
        Want{"mi210", "cdna2", 300, 22.6, 45.3, 181, 1638.4, 64},
        Want{"mi250", "cdna2", 280, 22.65, 45.25, 181, 1638.4, 64},
        Want{"gtx750ti", "maxwell", 60, 1.306, 0, 0, 86.4, 2}}) {
    INFO(w.id);
    const GpuHardware& g = gpu_preset(w.id);
    CHECK(g.arch == w.arch);
    CHECK(g.tdp_W == w.tdp);
    CHECK(g.idle_W > 0.0);
    CHECK(g.idle_W < g.tdp_W);
    CHECK(g.fp32_flops == Approx(w.fp32 * 1e12));
    CHECK(g.fp32_matrix_flops == Approx(w.fp32_matrix * 1e12));
    CHECK(g.fp16_flops == Approx(w.fp16 * 1e12));
    CHECK(g.memory_bw_Bps == Approx(w.bw_gbs * 1e9));
    CHECK(g.memory_bytes == w.mem_gib * 1073741824.0);
    CHECK(!g.source.empty());
  }
  // L4: TF32 60 and FP8 242.5 TFLOP/s dense; the A100s' TF32 156.
  CHECK(gpu_preset("l4").tf32_flops == Approx(60e12));
  CHECK(gpu_preset("l4").fp8_flops == Approx(242.5e12));
  CHECK(gpu_preset("a100-pcie-80gb").tf32_flops == Approx(156e12));
  // CDNA: FP32 GEMMs run on the matrix cores; NVIDIA GPUs have no separate FP32 matrix rate.
  CHECK(gpu_preset("mi250").gemm_peak_flops(Precision::fp32) == Approx(45.25e12));
  CHECK(gpu_preset("v100-pcie-32gb").gemm_peak_flops(Precision::fp32) == Approx(14e12));
  // The P4 and GTX 750 Ti have no tensor cores: FP16 falls back to FP32.
  CHECK(gpu_preset("p4").peak_flops(Precision::fp16) == Approx(5.5e12));
}

TEST_CASE("H200, B200, GB200 and MI300X presets carry their datasheets' figures", "[models][presets]") {
  // NVIDIA H200 datasheet (SXM): 141 GB HBM3e at 4.8 TB/s, the H100's tensor cores (989.4 TF BF16 dense),
  // up to 700 W, NVLink 900 GB/s both ways.
  const GpuHardware& h200 = gpu_preset("h200-sxm");
  CHECK(h200.fp16_flops == 989.4e12);
  CHECK(h200.fp8_flops == 1978.9e12);
  CHECK(h200.memory_bw_Bps == 4.8e12);
  CHECK(h200.tdp_W == 700.0);
  CHECK(h200.arch == "hopper");
  // HGX B200 (per GPU): 4.5 PF FP16/BF16 and 9 PF FP8 with sparsity, so 2.25 and 4.5 PF dense; 7.7 TB/s;
  // NVLink 5 at 1.8 TB/s both ways; up to 1,000 W.
  const GpuHardware& b200 = gpu_preset("b200");
  CHECK(b200.fp16_flops == 2250e12);
  CHECK(b200.fp8_flops == 4500e12);
  CHECK(b200.nvlink_bw_Bps == 900e9);
  CHECK(b200.tdp_W == 1000.0);
  CHECK(b200.nvlink_domain_gpus == 0u);  // its server's eight
  // GB200 NVL72 (per GPU): 5 PF FP16/BF16 and 10 PF FP8 sparse; 8 TB/s; up to 1,200 W; one NVLink domain of
  // 72 GPUs across the rack.
  const GpuHardware& gb200 = gpu_preset("gb200");
  CHECK(gb200.fp16_flops == 2500e12);
  CHECK(gb200.fp8_flops == 5000e12);
  CHECK(gb200.tdp_W == 1200.0);
  CHECK(gb200.nvlink_domain_gpus == 72u);
  CHECK(gb200.arch == "blackwell");
  // AMD MI300X: 1,307.4 TF FP16/BF16 and 2,614.9 TF FP8 dense, 192 GB at 5.3 TB/s, 750 W.
  const GpuHardware& mi = gpu_preset("mi300x");
  CHECK(mi.fp16_flops == 1307.4e12);
  CHECK(mi.fp8_flops == 2614.9e12);
  CHECK(mi.memory_bytes == 192.0 * 1024 * 1024 * 1024);
  CHECK(mi.tdp_W == 750.0);
  CHECK(mi.arch == "cdna3");
  for (const auto* g : {&h200, &b200, &gb200, &mi}) CHECK_FALSE(g->source.empty());
}
