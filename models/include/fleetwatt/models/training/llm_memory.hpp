// Memory per GPU of a training job split by 3D parallelism and ZeRO: model state by ZeRO stage (Rajbhandari
// et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", section 3 and figure
// 1) and transformer activations by recomputation (Korthikanti et al. 2022, "Reducing Activation
// Recomputation in Large Transformer Models", sections 4.1-4.3). The datasheet predictor refuses a job whose
// total exceeds the GPU's memory; `fleetwatt predict` prints the breakdown.
#pragma once

#include <cstdint>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models {

/// Bytes of training state per parameter. Mixed precision (fp16, bf16, fp8 paths) with Adam: 16-bit weights
/// and gradients, and K = 12 bytes of optimiser state (FP32 master weights, momentum, variance), ZeRO paper
/// section 3.1. FP32 / TF32 training keeps 4-byte weights and gradients and 8 bytes of Adam moments.
struct StateBytes {
  double weights = 2.0;
  double gradients = 2.0;
  double optimizer = 12.0;
};
[[nodiscard]] StateBytes training_state_bytes(jobs::Precision p) noexcept;

/// Memory per GPU, bytes, by what holds it.
struct MemoryBreakdown {
  double weights = 0.0;
  double gradients = 0.0;
  double optimizer = 0.0;
  double activations = 0.0;
  [[nodiscard]] double total() const noexcept { return weights + gradients + optimizer + activations; }
};

/// Model state of `params` parameters replicated over `dp` data-parallel GPUs at ZeRO stage `zero` (0..3):
/// stage 1 shards the optimiser state over dp, stage 2 also the gradients, stage 3 also the weights
/// (ZeRO paper figure 1: 7.5B parameters on 64 GPUs take 120, 31.4, 16.6 and 1.9 GB).
[[nodiscard]] MemoryBreakdown zero_model_state(double params, std::uint32_t dp, std::uint32_t zero,
                                               const StateBytes& bytes);

/// Activation bytes one transformer layer keeps for the backward pass, 16-bit activations (Korthikanti et al.
/// 2022, equations 1-2 and section 4.3): s b h (34 + 5 a s / h) without recomputation, divided by the
/// tensor-parallel degree t (with sequence parallelism); 34 s b h / t with selective recomputation (the
/// attention scores are recomputed); 2 s b h with full recomputation (the layer's input only). Fused
/// attention never stores the scores: 34 s b h / t without recomputation too. s: sequence length (per
/// context-parallel GPU), b: micro-batch (sequences), h: hidden width, a: attention heads.
[[nodiscard]] double activation_bytes_per_layer(double s, double b, double h, double a, std::uint32_t t,
                                                jobs::Recompute r,
                                                jobs::Attention attention = jobs::Attention::eager);

/// The memory-check inputs of one job.
struct MemoryJob {
  jobs::Parallelism parallel;
  std::uint32_t dp = 1;            ///< data-parallel degree (n_gpus / (tp pp))
  double per_replica_batch = 1.0;  ///< global batch / dp, samples (sequences)
  jobs::Precision precision = jobs::Precision::fp32;
  bool training = true;  ///< false: forward-only work keeps the weights only
  double inference_bytes_per_param = 4.0;
  jobs::Attention attention = jobs::Attention::eager;  ///< fused: no s^2 activations
};

/// Memory per GPU of `model` run as `job`. Model state: the shared parameters are split over tp x pp and the
/// experts' over tp x pp x ep, then ZeRO shards each over its data-parallel group (dp x cp: context-parallel
/// ranks hold the same weights; fsdp_shard_size x cp under hybrid sharding; dp / ep for the experts).
/// Activations: each context-parallel GPU holds s / cp of every sequence. Activations: a transformer's first
/// pipeline stage holds blocks / pp layers for up to pp micro-batches in flight (1F1B schedule, Korthikanti
/// section 4.2.3; (1 + (pp - 1) / (pp vp)) times that under the interleaved schedule of vp virtual stages),
/// each at activation_bytes_per_layer; FP32 / TF32 activations take twice the 16-bit bytes. Forward-only work
/// and families without transformer blocks keep every layer output of one micro-batch, split over tp, at the
/// precision's bytes per element.
[[nodiscard]] MemoryBreakdown memory_per_gpu(const ModelCount& model, const MemoryJob& job);

}  // namespace fleetwatt::models
