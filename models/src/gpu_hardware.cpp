// GPU datasheet presets. Figures are vendor datasheet values; each preset names its source.
#include "fleetwatt/models/gpu_hardware.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace fleetwatt::models {

double GpuHardware::peak_flops(workloads::Precision p) const noexcept {
  using workloads::Precision;
  switch (p) {
    case Precision::fp8:
      if (fp8_flops > 0) return fp8_flops;
      [[fallthrough]];
    case Precision::fp16:
    case Precision::bf16:
      if (fp16_flops > 0) return fp16_flops;
      [[fallthrough]];
    case Precision::tf32:
      if (tf32_flops > 0) return tf32_flops;
      [[fallthrough]];
    case Precision::fp32:
      return fp32_flops;
  }
  return fp32_flops;
}

const std::vector<GpuHardware>& gpu_presets() {
  static const std::vector<GpuHardware> presets = [] {
    std::vector<GpuHardware> v;
    GpuHardware a800;
    a800.id = "a800";
    a800.name = "NVIDIA A800 SXM4 80GB";
    a800.tdp_W = 400.0;
    // Typical nvidia-smi idle reading of A100-class SXM4 boards (50-60 W); an assumption, not a datasheet
    // figure. The valley phases of the A800 training study (62-67 W) sit just above it.
    a800.idle_W = 60.0;
    a800.fp32_flops = 19.5e12;
    a800.tf32_flops = 156e12;
    a800.fp16_flops = 312e12;
    a800.memory_bytes = 80e9;
    a800.memory_bw_Bps = 2.039e12;
    a800.nvlink_bw_Bps = 200e9;
    a800.pcie_bw_Bps = 32e9;
    a800.source = "NVIDIA A800 40GB/80GB datasheet (A100-class SXM4; NVLink limited to 400 GB/s)";
    v.push_back(a800);
    return v;
  }();
  return presets;
}

const GpuHardware& gpu_preset(std::string_view id) {
  const auto& all = gpu_presets();
  for (const auto& g : all)
    if (g.id == id) return g;
  std::vector<std::string> ids;
  for (const auto& g : all) ids.push_back(g.id);
  throw std::out_of_range(fmt::format("unknown GPU '{}' (known: {})", id, fmt::join(ids, ", ")));
}

}  // namespace fleetwatt::models
