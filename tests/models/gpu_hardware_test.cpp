// GPU presets: the built-in table parses, carries the datasheet figures, and user files are validated.
#include "fleetwatt/models/gpu_hardware.hpp"

#include <catch2/catch.hpp>

#include "test_support.hpp"

using namespace fleetwatt::models;
using fleetwatt::workloads::ConfigError;
using fleetwatt::workloads::Precision;

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
