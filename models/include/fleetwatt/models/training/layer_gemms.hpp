// A transformer layer's forward GEMMs on one GPU of its tensor-parallel group, and their time on the
// tensor-core GEMM model (models/hardware/tensor_gemm.hpp): what a training step's layers and a serving
// iteration's layers both run, so the two are timed by one model.
#pragma once

#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/tensor_gemm.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models {

/// One GEMM of a layer's forward pass on one GPU: M x N x K (M the tokens), `count` of them, in `precision`.
struct Gemm {
  double m = 0.0, n = 0.0, k = 0.0, count = 1.0;
  jobs::Precision precision = jobs::Precision::bf16;
};

/// A transformer layer's forward GEMMs on one of tp GPUs for `tokens` tokens (Megatron's column- and
/// row-parallel split): QKV (grouped-query: heads + 2 kv_heads), the attention output, and the feed-forward
/// in (gate and up fused when gated) and out; for a mixture of experts the router and each of the GPU's E /
/// ep experts over its tokens (top_k x ep x tokens / E, balanced: Megatron-Bridge's benchmarks force the
/// balance). `linear`: the precision of the layer's linear GEMMs (FP8 under Transformer Engine).
[[nodiscard]] std::vector<Gemm> layer_gemms(const ModelCount& m, double tokens, double tp, double ep,
                                            jobs::Precision linear, jobs::Precision p16);

/// Seconds (full clocks) and FLOPs of a forward pass over `gemms`, and their time at the peak.
struct GemmTime {
  double s = 0.0, flops = 0.0, at_peak_s = 0.0;
  void add(const GemmTime& o, double times) {
    s += times * o.s, flops += times * o.flops, at_peak_s += times * o.at_peak_s;
  }
};
/// The GEMMs' time on `gpu` by a tensor-core GEMM fit (the built-in one by default).
[[nodiscard]] GemmTime time_gemms(const std::vector<Gemm>& gemms, const GpuHardware& gpu,
                                  const TensorGemmFit& fit = default_tensor_gemm());

}  // namespace fleetwatt::models
