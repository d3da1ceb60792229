// Component power model: P = P_idle + P_dyn + P_mem_io per GPU, and the uncertainty bands that go with it.
#include "fleetwatt/models/predictors/component_model.hpp"

#include <algorithm>

namespace fleetwatt::models {

double resident_floor_W(const GpuHardware& gpu, const ComponentParams& params) noexcept {
  return std::min(gpu.tdp_W, gpu.idle_W + params.resident_floor_fraction * gpu.tdp_W);
}

ComponentPower component_power(const GpuHardware& gpu, const ComponentActivity& a,
                               const ComponentParams& params) {
  const auto unit = [](double v) { return std::clamp(v, 0.0, 1.0); };
  ComponentPower p;
  p.idle_W = resident_floor_W(gpu, params);
  const double headroom = gpu.tdp_W - p.idle_W;
  const bool half = a.precision == jobs::Precision::fp16 || a.precision == jobs::Precision::bf16 ||
                    a.precision == jobs::Precision::fp8;
  const double precision_factor = half ? params.fp16_power_factor : 1.0;
  // A starved pipeline idles the SMs and the memory alike.
  const double fed = unit(a.pipeline_factor);
  p.dynamic_W =
      headroom * params.dynamic_share * unit(a.utilisation) * fed * precision_factor * a.fusion_factor;
  p.mem_io_W = headroom * params.mem_io_share * unit(a.memory_activity) * fed;
  // The board's power limit holds whatever the factors say.
  const double excess = p.total_W() - gpu.tdp_W;
  if (excess > 0.0) {
    const double scale = (headroom) / (p.dynamic_W + p.mem_io_W);
    p.dynamic_W *= scale;
    p.mem_io_W *= scale;
  }
  return p;
}

UncertaintyBand energy_uncertainty(double dynamic_fraction, bool communication_heavy) noexcept {
  const double rel = std::clamp(dynamic_fraction, 0.0, 1.0) * dynamic_power_uncertainty(communication_heavy);
  return {rel, rel};
}

}  // namespace fleetwatt::models
