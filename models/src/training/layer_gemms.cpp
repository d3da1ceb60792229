// A transformer layer's forward GEMMs per tensor-parallel GPU and their time (see the header).
#include "fleetwatt/models/training/layer_gemms.hpp"

#include <algorithm>

#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/hardware/tensor_gemm.hpp"

namespace fleetwatt::models {

using jobs::Precision;

std::vector<Gemm> layer_gemms(const ModelCount& m, double tokens, double tp, double ep, Precision linear,
                              Precision p16) {
  const double h = m.d_model, a = m.d_attention > 0 ? m.d_attention : h;
  const double d_head = a / m.heads, kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
  const double ff = m.d_ff, in = m.ffn_in_matrices;
  std::vector<Gemm> g;
  g.push_back({tokens, (m.heads + 2.0 * kv) * d_head / tp, h, 1.0, linear});
  g.push_back({tokens, h, a / tp, 1.0, linear});
  if (m.experts > 1) {
    const double experts = m.experts, local = std::max(1.0, experts / ep);
    const double routed = tokens * m.top_k * std::min(ep, experts) / experts;
    g.push_back({tokens, experts, h, 1.0, p16});
    g.push_back({routed, in * ff / tp, h, local, linear});
    g.push_back({routed, h, ff / tp, local, linear});
  } else {
    g.push_back({tokens, in * ff / tp, h, 1.0, linear});
    g.push_back({tokens, h, ff / tp, 1.0, linear});
  }
  return g;
}

GemmTime time_gemms(const std::vector<Gemm>& gemms, const GpuHardware& gpu, const TensorGemmFit& fit) {
  GemmTime t;
  for (const Gemm& g : gemms) {
    const double flops = 2.0 * g.m * g.n * g.k;
    t.s += g.count * tensor_gemm_seconds(fit, gpu, g.precision, g.m, g.n, g.k);
    t.flops += g.count * flops;
    t.at_peak_s += g.count * flops / matmul_peak_flops(gpu, g.precision);
  }
  return t;
}

}  // namespace fleetwatt::models
