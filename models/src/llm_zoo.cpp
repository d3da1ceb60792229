// Llama-layout decoder counts (Llama 2, Llama 3/3.1, Mixtral): parameters and forward work by operator class,
// walked the way the HuggingFace LlamaForCausalLM / MixtralForCausalLM modules are built, so the parameter
// totals equal the model cards' exact counts (Llama 2 7B 6,738,415,616; Llama 3 8B 8,030,261,248).
#include <fmt/format.h>

#include <stdexcept>

#include "fleetwatt/models/model_zoo.hpp"
#include "llm_shapes.hpp"
#include "zoo_ops.hpp"

namespace fleetwatt::models {

ModelCount llama_decoder(const DecoderShape& s, std::string name) {
  if (s.layers == 0 || s.d_model == 0 || s.heads == 0 || s.kv_heads == 0 || s.d_ff == 0 || s.vocab == 0 ||
      s.seq_len == 0)
    throw std::invalid_argument(
        fmt::format("{}: layers, widths, heads, vocabulary and sequence must be positive", name));
  if (s.d_model % s.heads != 0 || s.heads % s.kv_heads != 0)
    throw std::invalid_argument(
        fmt::format("{}: heads {} must divide d_model {} and be a multiple of the KV heads {}", name, s.heads,
                    s.d_model, s.kv_heads));
  if (s.experts == 0 || s.active_experts == 0 || s.active_experts > s.experts)
    throw std::invalid_argument(fmt::format("{}: active experts must be in 1..experts", name));
  if (s.seq_len > s.max_seq)
    throw std::invalid_argument(
        fmt::format("{}: sequence length {} is not in 1..{}", name, s.seq_len, s.max_seq));
  const double d = s.d_model, ff = s.d_ff, V = s.vocab, T = s.seq_len, E = s.experts, k = s.active_experts;
  const double kv = d / s.heads * s.kv_heads;  // width of K and of V (grouped-query attention)
  const bool moe = s.experts > 1;
  const double router = moe ? d * E : 0.0;
  const double attention_params = 2.0 * d * d + 2.0 * d * kv;  // Q, O and the narrower K, V; no biases
  const double expert = 3.0 * d * ff;                          // SwiGLU: gate, up, down
  const double norms = 2.0 * d;                                // two RMSNorm scales
  const double layer_params = attention_params + E * expert + router + norms;
  const double layer_active = attention_params + k * expert + router + norms;
  const double embeddings = 2.0 * V * d;  // untied input and output embeddings

  detail::Ops ops;
  const double td = T * d, scores = static_cast<double>(s.heads) * T * T;
  ops.elementwise(td, td);  // token lookup
  for (std::uint32_t l = 0; l < s.layers; ++l) {
    ops.elementwise(td, td, 4.0, d);  // RMSNorm: square, mean, rsqrt, scale
    // Q, K, V and O projections; then the experts' gate, up and down over the tokens routed to them (the
    // batch's tokens reach every expert, so every expert's weights are read each step).
    ops.add(OpClass::tensor, 2.0 * T * attention_params, 3.0 * td + T * d, 2.0 * td + 2.0 * T * kv,
            attention_params, 4.0);
    ops.elementwise(td + T * kv, td + T * kv, 3.0);  // rotary embedding of Q and K
    ops.add(OpClass::attention, 2.0 * (2.0 * T * T * d), 3.0 * td + 3.0 * scores, td + 3.0 * scores, 0.0,
            4.0);
    ops.add(OpClass::memory, 7.0 * scores, 0.0, 0.0, 0.0, 0.0);  // scale, mask and softmax of the scores
    ops.elementwise(td, 2.0 * td);                               // residual add
    ops.elementwise(td, td, 4.0, d);                             // RMSNorm
    if (moe) {
      ops.gemm(OpClass::tensor, T * router, td, T * E, router);
      ops.elementwise(T * E, T * E, 5.0);  // softmax and top-k of the router logits
      ops.elementwise(k * td, k * td);     // gather the tokens per expert
      ops.elementwise(td, k * td, 2.0);    // weighted scatter back
    }
    ops.add(OpClass::tensor, 2.0 * T * k * expert, k * (2.0 * td + T * ff), k * (2.0 * T * ff + td),
            E * expert, 3.0 * E);
    ops.elementwise(k * T * ff, 2.0 * k * T * ff, 2.0);  // SiLU(gate) x up
    ops.elementwise(td, 2.0 * td);                       // residual add
  }
  detail::Ops head;
  head.elementwise(td, td, 4.0, d);  // final RMSNorm
  head.gemm(OpClass::tensor, T * d * V, td, T * V, V * d);
  ops.merge(head);

  const double layer_macs = T * (attention_params + k * expert + router) + 2.0 * T * T * d;
  ModelCount m;
  m.name = std::move(name);
  m.family = ModelFamily::transformer;
  m.params = embeddings + s.layers * layer_params + d;
  m.active_params = embeddings + s.layers * layer_active + d;
  m.expert_params = moe ? s.layers * E * expert : 0.0;
  m.forward_macs = s.layers * layer_macs + T * d * V;
  m.forward_flops = 2.0 * m.forward_macs;
  m.input_size = s.seq_len;
  m.weight_layers = s.layers * (4 + 3 * s.experts + (moe ? 1 : 0)) + 1;
  m.param_tensors = s.layers * (6 + 3 * s.experts + (moe ? 1 : 0)) + 3;
  // Per layer: norm, Q, K, V, attention output, O, norm, gate, up, SiLU x up, down; scores and probabilities.
  m.activation_elements =
      s.layers * (T * (5.0 * d + 2.0 * kv + k * (3.0 * ff + d)) + 2.0 * scores) + 2.0 * td + T * V;
  m.ops = ops.w;
  m.head_ops = head.w;
  m.blocks = s.layers, m.d_model = s.d_model, m.heads = s.heads, m.d_attention = s.d_model;
  return m;
}

namespace detail {

std::optional<DecoderShape> llm_shape(std::string_view name) {
  // layers, d_model, heads, kv_heads, d_ff, vocab, context, experts, active experts
  auto shape = [](std::uint32_t L, std::uint32_t d, std::uint32_t h, std::uint32_t kv, std::uint32_t ff,
                  std::uint32_t V, std::uint32_t ctx, std::uint32_t E = 1, std::uint32_t k = 1) {
    DecoderShape s;
    s.layers = L, s.d_model = d, s.heads = h, s.kv_heads = kv, s.d_ff = ff, s.vocab = V, s.max_seq = ctx;
    s.experts = E, s.active_experts = k, s.seq_len = ctx;
    return s;
  };
  // Touvron et al. 2023 (Llama 2) table 1 and the HuggingFace configs.
  if (name == "llama2_7b") return shape(32, 4096, 32, 32, 11008, 32000, 4096);
  if (name == "llama2_13b") return shape(40, 5120, 40, 40, 13824, 32000, 4096);
  if (name == "llama2_70b") return shape(80, 8192, 64, 8, 28672, 32000, 4096);
  // The Llama 3 Herd of Models report, table 3 (vocabulary 128,000 + 256 special tokens).
  if (name == "llama3_8b") return shape(32, 4096, 32, 8, 14336, 128256, 8192);
  if (name == "llama3_70b") return shape(80, 8192, 64, 8, 28672, 128256, 8192);
  if (name == "llama31_405b") return shape(126, 16384, 128, 8, 53248, 128256, 8192);
  // Jiang et al. 2024 (Mixtral of Experts) table 1: Mistral 7B's layout, 8 experts, top 2.
  if (name == "mixtral_8x7b") return shape(32, 4096, 32, 8, 14336, 32000, 4096, 8, 2);
  return std::nullopt;
}

}  // namespace detail
}  // namespace fleetwatt::models
