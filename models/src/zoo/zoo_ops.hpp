// Operator-class accumulator shared by the zoo's counters (model_zoo.cpp for the CNNs, ViT, BERT and GPT
// layouts; llm_zoo.cpp for the Llama / Mixtral decoder layout), so both follow one set of counting rules.
#pragma once

#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models::detail {

/// Accumulates the forward pass by operator class (ModelCount::ops). Rules, used by every architecture:
///  - bytes are FP32 activations read and written by each kernel (4 bytes per element), per sample;
///  - weight_bytes count every parameter once per kernel that reads all of it (GEMM weights and biases,
///    normalisation scales and shifts, ViT's class token and position table); embedding tables only
///    gathered by row count no weight bytes (their touched rows are activation bytes), so a tied output
///    embedding is counted once, by the vocabulary projection's GEMM;
///  - memory FLOPs are one per output element, five per element for batch/layer norms and softmax; dropout
///    and reshapes that PyTorch runs as views are not counted;
///  - attention holds the score and value matmuls (their FLOPs are part of forward_flops) and the traffic and
///    launches of the score chain (QK^T, scale and mask, softmax, AV: four kernels per layer); the chain's
///    element-wise FLOPs (2 for scale and mask + 5 for softmax per score element) go to memory FLOPs, so
///    tensor + vector + attention FLOPs equal forward_flops exactly.
struct Ops {
  std::array<OpWork, kOpClasses> w{};

  void add(OpClass c, double flops, double read, double written, double weights, double kernels = 1.0) {
    OpWork& o = w[static_cast<std::size_t>(c)];
    o.flops += flops;
    o.bytes += 4.0 * (read + written);
    o.weight_bytes += 4.0 * weights;
    o.kernels += kernels;
  }
  /// A GEMM-like kernel: 2 FLOPs per MAC.
  void gemm(OpClass c, double macs, double read, double written, double weights) {
    add(c, 2.0 * macs, read, written, weights);
  }
  /// An element-wise / reduction kernel writing `out` elements after reading `read`.
  void elementwise(double out, double read, double flops_per_element = 1.0, double weights = 0.0) {
    add(OpClass::memory, flops_per_element * out, read, out, weights);
  }
  void merge(const Ops& o) {
    for (std::size_t i = 0; i < kOpClasses; ++i) {
      w[i].flops += o.w[i].flops, w[i].bytes += o.w[i].bytes;
      w[i].weight_bytes += o.w[i].weight_bytes, w[i].kernels += o.w[i].kernels;
    }
  }
};

}  // namespace fleetwatt::models::detail
