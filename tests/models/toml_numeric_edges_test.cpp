// GPU preset files with each numeric key at ±1e300, NaN, ±inf, 2^63, 2^64, 2^32 and a subnormal
// (numeric_edges.hpp): a located error (file, line, key) or a finite figure.
#include <catch2/catch.hpp>
#include <cmath>
#include <utility>
#include <vector>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "numeric_edges.hpp"

using namespace fleetwatt;
using test::Fields;

TEST_CASE("every numeric key of a GPU preset at the numeric edges is located or finite",
          "[gpu-presets][bad-input][edges]") {
  // Figures are refused when negative (or zero where required) and above 1e6 of their unit (1e300 TFLOP/s
  // became an infinite FLOP rate once scaled to FLOP/s); a subnormal required figure is positive and read as
  // given (tiny but finite), a subnormal idle_w or resident_w as about 0 W. nvlink_domain_gpus is an integer
  // in [1, 2^20]: TOML reads nan, inf and 1e300 as floats, refused there.
  const Fields fields = {{"tdp_w", "400"},
                         {"idle_w", "60"},
                         {"fp32_tflops", "19.5"},
                         {"tf32_tflops", "156"},
                         {"fp16_tflops", "312"},
                         {"fp8_tflops", "624"},
                         {"memory_gib", "80"},
                         {"memory_bw_gbytes_per_s", "2039"},
                         {"nvlink_gbytes_per_s", "300"},
                         {"pcie_gbytes_per_s", "32"},
                         {"fp32_matrix_tflops", "19.5"},
                         {"resident_w", "90"},
                         {"nvlink_domain_gpus", "8"}};
  std::string text = "[[gpu]]\nid = \"g\"\n";
  for (const auto& [key, good] : fields) text += key + " = {" + key + "}\n";
  REQUIRE(models::parse_gpu_presets(test::fill(text, fields, "", ""), "gpus.toml").size() == 1);
  for (std::size_t k = 0; k < fields.size(); ++k) {
    const auto& key = fields[k].first;
    const unsigned line = static_cast<unsigned>(k) + 3;
    for (const auto& value : test::numeric_edges()) {
      INFO(key << " = " << value);
      std::vector<models::GpuHardware> got;
      const auto error = test::input_error_of(
          [&] { got = models::parse_gpu_presets(test::fill(text, fields, key, value), "gpus.toml"); });
      if (error) {
        if (test::beyond_64_bits(value))
          CHECK(error->rfind("gpus.toml:" + std::to_string(line) + ":", 0) == 0);
        else  // a tdp_w at or below idle_w is refused at idle_w, naming tdp_w
          test::check_located(*error, "gpus.toml", error->find("idle_w:") != std::string::npos ? 4 : line,
                              key);
        continue;
      }
      REQUIRE(got.size() == 1);
      const auto& g = got.front();
      for (const double v :
           {g.tdp_W, g.idle_W, g.fp32_flops, g.tf32_flops, g.fp16_flops, g.fp8_flops, g.memory_bytes,
            g.memory_bw_Bps, g.nvlink_bw_Bps, g.pcie_bw_Bps, g.fp32_matrix_flops, g.resident_W}) {
        CHECK(std::isfinite(v));
        CHECK(v >= 0.0);
      }
      CHECK(g.idle_W < g.tdp_W);
    }
  }
}
