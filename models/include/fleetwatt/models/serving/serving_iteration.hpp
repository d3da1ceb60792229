// One iteration of an LLM replica serving requests with continuous batching (vLLM's scheduler, Orca's
// iteration-level batching): each iteration runs the prompt tokens admitted to it and one generated token of
// every running sequence as one batch, on the replica's tp GPUs. Its time is the training step's models
// applied to that batch, per layer:
//   - the linear GEMMs over all its tokens (models/training/layer_gemms.hpp on the tensor-core GEMM fit: at
//     a decode batch's few rows a GEMM's time is its weights' reading, which the fit's d_half carries);
//   - prompt attention as two fused GEMMs per head over the keys each query attends (causal);
//   - generated tokens' attention as a read of their sequences' cached keys and values at the memory
//     bandwidth the roofline fit reaches;
//   - element-wise kernels (norms, rotary positions, the activation, residual adds) over every token;
//   - two tensor-parallel all-reduces of the layer's output on the measured NCCL link;
//   - with pipeline stages, the hidden states each stage hands the next: the measured NCCL send/recv link
//     within a node, the inter-node link (PCIe's bandwidth per GPU, as training's pipelines) between nodes;
//   - a fixed host time per layer that the GPUs wait for (the serving stack's launches), fitted on
//     splitwise-sim's measured prompt and token times (models/fit/serving_check.hpp); none in an iteration
//     of decode tokens alone where the stack replays a CUDA graph;
// plus the output projection of every sequence that emits a token. Its power per GPU is the training
// step's utilisation power at the tensor-core saturation, driven by the share of the iteration the GPU is
// busy: what makes a larger batch draw more and an overhead-bound small one little.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/tensor_gemm.hpp"
#include "fleetwatt/models/predictors/predictor_constants.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models {

/// The serving stack's constants.
struct ServingConstants {
  /// Host seconds per layer and iteration the GPUs wait for (kernel launches, the scheduler's share);
  /// fitted on splitwise-sim's A100 and H100 prompt and token times (`fleetwatt validate --serving` refits
  /// it and a test checks this value against that fit).
  double layer_overhead_s = 2.13e-4;
  /// Element-wise kernels per layer: two norms, rotary positions, the activation, two residual adds.
  double elementwise_kernels = 6.0;
  /// Iterations without prompt tokens replay a captured CUDA graph, so no host time per layer: vLLM's
  /// default (`enforce_eager = False`), as SGLang's and TensorRT-LLM's. A Llama-3-8B-shaped decoder on one
  /// H200 (examples/telemetry/h200-sxm) decodes a batch of one in 6.3 ms with a graph, where the host time
  /// alone would add 6.8 ms. Off for a stack launching every kernel from the host (splitwise-sim's
  /// measurements, which carry that host time in their token times too).
  bool decode_graphs = true;
};

/// What one iteration runs, summed over its sequences.
struct IterationBatch {
  double prefill_tokens = 0.0;     ///< prompt tokens (whole prompts or chunks of them)
  double prefill_sequences = 0.0;  ///< prompts whose last token this iteration reaches (each emits a token)
  /// Sum over the prompt tokens of the keys each attends (causal: a prompt of P tokens from scratch gives
  /// P (P + 1) / 2).
  double prefill_attended_keys = 0.0;
  double decode_sequences = 0.0;       ///< sequences generating one token each
  double decode_context_tokens = 0.0;  ///< sum of their contexts: the cached keys and values they read
};

/// A replica: the model, its GPU, tensor-parallel degree (one node's NVLink domain) and pipeline stages, the
/// GEMMs' precision. A replica of pp stages serves as pp engines (vLLM's virtual engines), each with its own
/// batch passing through every stage in turn, so that every stage works on one of them at any time; an
/// iteration here is one engine's pass: every layer at tp, plus the hidden states handed from stage to stage.
struct ServingReplica {
  ModelCount model;
  GpuHardware gpu;
  std::uint32_t tp = 1;
  std::uint32_t pp = 1;
  jobs::Precision precision = jobs::Precision::fp16;
  /// The GPUs of a pipeline stage and the stages, at least 1 each (0 as given reads as 1).
  [[nodiscard]] std::uint32_t stage_gpus() const noexcept { return tp > 0 ? tp : 1u; }
  [[nodiscard]] std::uint32_t stages() const noexcept { return pp > 0 ? pp : 1u; }
};

/// One iteration's time and each GPU's draw over it.
struct IterationCost {
  double time_s = 0.0;
  double gemm_s = 0.0;         ///< linear GEMMs and the output projection
  double attention_s = 0.0;    ///< prompt attention and cached keys' and values' reads
  double elementwise_s = 0.0;  ///< norms, activations, residuals
  double comm_s = 0.0;         ///< tensor-parallel all-reduces and the pipeline stages' hand-overs
  double overhead_s = 0.0;     ///< host time the GPUs wait for
  double busy_share = 0.0;     ///< achieved utilisation: (compute + memory_weight x memory) / time
  double power_W = 0.0;        ///< per GPU, at or under its TDP
};

/// What makes `replica` one no iteration can run on, as {key, why} ("model": not a transformer decoder with
/// a known shape; "tp": tp 0, or tp above 1 on a GPU without NVLink; "pp": pp 0 or more stages than
/// layers); {} when it can run.
[[nodiscard]] std::pair<std::string, std::string> replica_problem(const ServingReplica& replica);

/// The cost of `batch` on `replica`, its GEMMs on `gemm_fit`. Throws std::invalid_argument for a model that
/// is not a transformer decoder, tp 0, tp above 1 on a GPU without NVLink, a negative count, or an empty
/// batch.
[[nodiscard]] IterationCost serving_iteration(const ServingReplica& replica, const IterationBatch& batch,
                                              const ServingConstants& constants = {},
                                              const PredictorFit& fit = default_predictor_fit(),
                                              const TensorGemmFit& gemm_fit = default_tensor_gemm());

}  // namespace fleetwatt::models
