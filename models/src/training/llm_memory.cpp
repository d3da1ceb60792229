// Memory per GPU under 3D parallelism, ZeRO and activation recomputation (see llm_memory.hpp for the
// sources). Everything is a closed form of the model's counts and the job's split.
#include "fleetwatt/models/training/llm_memory.hpp"

#include <algorithm>
#include <cmath>

namespace fleetwatt::models {

using jobs::Precision;
using jobs::Recompute;

StateBytes training_state_bytes(Precision p) noexcept {
  if (p == Precision::fp32 || p == Precision::tf32) return {4.0, 4.0, 8.0};
  return {2.0, 2.0, 12.0};
}

MemoryBreakdown zero_model_state(double params, std::uint32_t dp, std::uint32_t zero, const StateBytes& b) {
  const double n = std::max<std::uint32_t>(dp, 1);
  MemoryBreakdown m;
  m.weights = b.weights * params / (zero >= 3 ? n : 1.0);
  m.gradients = b.gradients * params / (zero >= 2 ? n : 1.0);
  m.optimizer = b.optimizer * params / (zero >= 1 ? n : 1.0);
  return m;
}

double activation_bytes_per_layer(double s, double b, double h, double a, std::uint32_t t, Recompute r,
                                  jobs::Attention attention) {
  const double tp = std::max<std::uint32_t>(t, 1);
  switch (r) {
    case Recompute::none:
      if (attention != jobs::Attention::eager) return 34.0 * s * b * h / tp;
      return s * b * h * (34.0 + 5.0 * a * s / h) / tp;
    case Recompute::selective:
      return 34.0 * s * b * h / tp;
    case Recompute::full:
      return 2.0 * s * b * h;
  }
  return 0.0;
}

MemoryBreakdown memory_per_gpu(const ModelCount& model, const MemoryJob& job) {
  const auto& par = job.parallel;
  const double mp = static_cast<double>(std::max(par.tp, 1u)) * std::max(par.pp, 1u);
  const std::uint32_t ep = std::max(par.ep, 1u), cp = std::max(par.cp, 1u);
  // ZeRO shards over the data- and context-parallel group, or its shard group under hybrid sharding.
  const std::uint32_t dp = std::max(par.shard_group(std::max(job.dp, 1u)), 1u) * cp;
  const double experts = std::min(model.expert_params, model.params), shared = model.params - experts;
  MemoryBreakdown m;
  if (job.training) {
    const StateBytes bytes = training_state_bytes(job.precision);
    const MemoryBreakdown s = zero_model_state(shared / mp, dp, par.zero, bytes);
    const MemoryBreakdown e = zero_model_state(experts / (mp * ep), std::max(dp / ep, 1u), par.zero, bytes);
    m.weights = s.weights + e.weights, m.gradients = s.gradients + e.gradients;
    m.optimizer = s.optimizer + e.optimizer;
  } else {
    m.weights = job.inference_bytes_per_param * (shared / mp + experts / (mp * ep));
  }
  const double micro = par.micro_batch_of(job.per_replica_batch);
  const bool wide = job.precision == Precision::fp32 || job.precision == Precision::tf32;
  if (job.training && model.blocks > 0 && model.d_model > 0 && model.heads > 0) {
    const double micro_batches = std::ceil(job.per_replica_batch / std::max(micro, 1e-9));
    // 1F1B keeps pp - i micro-batches in flight on stage i; interleaved over vp chunks the first keeps
    // (1 + (pp - 1) / (pp vp)) times as much (Korthikanti et al. 2022, section 4.2.3). The most loaded is
    // the first stage, or the second when the first has fewer layers (first_stage_layers).
    const double pp = std::max(par.pp, 1u), vp = std::max(par.vp, 1u);
    const auto n = par.stage_layers(model.blocks);
    const double layer_flights = std::max(
        std::ceil(n.first) * std::min<double>(pp, micro_batches),
        pp > 1.0 ? std::ceil(pp > 2.0 ? n.middle : n.last) * std::min<double>(pp - 1.0, micro_batches) : 0.0);
    const double interleaved = vp > 1.0 ? 1.0 + (pp - 1.0) / (pp * vp) : 1.0;
    m.activations =
        layer_flights * interleaved * (wide ? 2.0 : 1.0) *
        activation_bytes_per_layer(static_cast<double>(model.input_size) / cp, micro, model.d_model,
                                   model.heads, par.tp, par.recompute, job.attention);
  } else {
    // Forward-only work, and families without transformer blocks: every layer output of one micro-batch.
    m.activations = micro * model.activation_elements * (wide ? 4.0 : 2.0) / std::max(par.tp, 1u) / cp;
  }
  return m;
}

}  // namespace fleetwatt::models
