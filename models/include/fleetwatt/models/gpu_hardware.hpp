// A GPU's datasheet: what predictors need to turn FLOPs and bytes into seconds and watts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/workloads/job_spec.hpp"

namespace fleetwatt::models {

struct GpuHardware {
  std::string id;           ///< preset id ("a800", "h100-sxm", ...)
  std::string name;         ///< marketing name
  double tdp_W = 0.0;       ///< board power limit at default settings
  double idle_W = 0.0;      ///< typical idle draw
  double fp32_flops = 0.0;  ///< peak dense FLOP/s per precision (0: not supported)
  double tf32_flops = 0.0;
  double fp16_flops = 0.0;  ///< FP16 and BF16 tensor throughput
  double fp8_flops = 0.0;
  double memory_bytes = 0.0;
  double memory_bw_Bps = 0.0;  ///< bytes/s
  double nvlink_bw_Bps = 0.0;  ///< per GPU, per direction (0: none)
  double pcie_bw_Bps = 0.0;    ///< per direction
  std::string source;          ///< where the figures come from

  /// Peak dense throughput for a precision, falling back to the nearest supported one.
  [[nodiscard]] double peak_flops(workloads::Precision p) const noexcept;
};

/// The built-in preset with this id; throws std::out_of_range listing the known ids when there is none.
[[nodiscard]] const GpuHardware& gpu_preset(std::string_view id);
/// Every built-in preset, in a stable order.
[[nodiscard]] const std::vector<GpuHardware>& gpu_presets();

}  // namespace fleetwatt::models
