// Llama-layout decoder counts (Llama 2, Llama 3/3.1, Mixtral): parameters and forward work by operator class,
// walked the way the HuggingFace LlamaForCausalLM / MixtralForCausalLM modules are built, so the parameter
// totals equal the model cards' exact counts (Llama 2 7B 6,738,415,616; Llama 3 8B 8,030,261,248).
#include <fmt/format.h>

#include <stdexcept>

#include "fleetwatt/models/zoo/model_zoo.hpp"
#include "llm_shapes.hpp"
#include "zoo_ops.hpp"

namespace fleetwatt::models {

ModelCount llama_decoder(const DecoderShape& s, std::string name) {
  if (s.layers == 0 || s.d_model == 0 || s.heads == 0 || s.kv_heads == 0 || s.d_ff == 0 || s.seq_len == 0)
    throw std::invalid_argument(fmt::format("{}: layers, widths, heads and sequence must be positive", name));
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
  const double ffn_in = s.gated ? 2.0 : 1.0;                   // gate and up, or up alone
  const double expert = (ffn_in + 1.0) * d * ff;               // ... and down
  const double norm_params = (s.norm_bias ? 2.0 : 1.0) * d;    // a scale (and a shift)
  const double norms = s.norms_per_layer * norm_params;
  const double layer_params = attention_params + E * expert + router + norms;
  const double layer_active = attention_params + k * expert + router + norms;
  const double embeddings = (s.tied ? 1.0 : 2.0) * V * d;  // input and output embeddings

  detail::Ops ops;
  const double td = T * d, scores = static_cast<double>(s.heads) * T * T;
  ops.elementwise(td, td);  // token lookup
  for (std::uint32_t l = 0; l < s.layers; ++l) {
    for (std::uint32_t n = 2; n < s.norms_per_layer; ++n) ops.elementwise(td, td, 4.0, norm_params);
    ops.elementwise(td, td, 4.0, norm_params);  // the norm before attention: square, mean, rsqrt, scale
    // Q, K, V and O projections; then the experts' gate, up and down over the tokens routed to them (the
    // batch's tokens reach every expert, so every expert's weights are read each step).
    ops.add(OpClass::tensor, 2.0 * T * attention_params, 3.0 * td + T * d, 2.0 * td + 2.0 * T * kv,
            attention_params, 4.0);
    ops.elementwise(td + T * kv, td + T * kv, 3.0);  // rotary embedding of Q and K
    ops.add(OpClass::attention, 2.0 * (2.0 * T * T * d), 3.0 * td + 3.0 * scores, td + 3.0 * scores, 0.0,
            4.0);
    ops.add(OpClass::memory, 7.0 * scores, 0.0, 0.0, 0.0, 0.0);  // scale, mask and softmax of the scores
    ops.elementwise(td, 2.0 * td);                               // residual add
    ops.elementwise(td, td, 4.0, norm_params);                   // the norm before the feed-forward
    if (moe) {
      ops.gemm(OpClass::tensor, T * router, td, T * E, router);
      ops.elementwise(T * E, T * E, 5.0);  // softmax and top-k of the router logits
      ops.elementwise(k * td, k * td);     // gather the tokens per expert
      ops.elementwise(td, k * td, 2.0);    // weighted scatter back
    }
    ops.add(OpClass::tensor, 2.0 * T * k * expert, k * (ffn_in * td + T * ff), k * (ffn_in * T * ff + td),
            E * expert, (ffn_in + 1.0) * E);
    if (s.gated)
      ops.elementwise(k * T * ff, 2.0 * k * T * ff, 2.0);  // SiLU(gate) x up
    else
      ops.elementwise(k * T * ff, k * T * ff, 2.0);  // the activation (squared ReLU, GELU)
    ops.elementwise(td, 2.0 * td);                   // residual add
  }
  detail::Ops head;
  head.elementwise(td, td, 4.0, norm_params);  // final norm
  if (V > 0.0) head.gemm(OpClass::tensor, T * d * V, td, T * V, V * d);
  ops.merge(head);

  const double layer_macs = T * (attention_params + k * expert + router) + 2.0 * T * T * d;
  ModelCount m;
  m.name = std::move(name);
  m.family = ModelFamily::transformer;
  m.params = embeddings + s.layers * layer_params + norm_params;
  m.active_params = embeddings + s.layers * layer_active + d;
  m.expert_params = moe ? s.layers * E * expert : 0.0;
  m.forward_macs = s.layers * layer_macs + T * d * V;
  m.forward_flops = 2.0 * m.forward_macs;
  m.input_size = s.seq_len;
  const std::uint32_t ffn_matrices = s.gated ? 3 : 2;
  m.weight_layers = s.layers * (4 + ffn_matrices * s.experts + (moe ? 1 : 0)) + 1;
  m.param_tensors =
      s.layers * (4 + ffn_matrices * s.experts + (moe ? 1 : 0) + s.norms_per_layer * (s.norm_bias ? 2 : 1)) +
      (s.tied ? 1 : 2) + (s.norm_bias ? 2 : 1);
  // Per layer: norm, Q, K, V, attention output, O, norm, gate, up, SiLU x up, down; scores and probabilities.
  m.activation_elements =
      s.layers * (T * (5.0 * d + 2.0 * kv + k * ((ffn_in + 1.0) * ff + d)) + 2.0 * scores) + 2.0 * td + T * V;
  m.ops = ops.w;
  m.head_ops = head.w;
  m.blocks = s.layers, m.d_model = s.d_model, m.heads = s.heads, m.d_attention = s.d_model;
  m.kv_heads = s.kv_heads, m.d_ff = s.d_ff, m.ffn_in_matrices = s.gated ? 2 : 1;
  m.experts = s.experts, m.top_k = s.active_experts, m.vocab = s.vocab;
  return m;
}

ModelCount decoder_from_shape(const jobs::ModelShape& shape, std::uint32_t seq, std::string name) {
  if (const auto [key, why] = shape.problem(); !key.empty())
    throw std::invalid_argument(fmt::format("{}: {}", key, why));
  DecoderShape s;
  s.layers = shape.layers, s.d_model = shape.hidden, s.heads = shape.heads;
  s.kv_heads = shape.kv_heads > 0 ? shape.kv_heads : shape.heads;
  s.d_ff = shape.ffn_hidden > 0 ? shape.ffn_hidden : 4 * shape.hidden;
  s.vocab = shape.vocab, s.experts = shape.experts, s.active_experts = shape.top_k;
  s.gated = shape.gated;
  s.seq_len = seq, s.max_seq = seq;
  return llama_decoder(s, std::move(name));
}

std::optional<jobs::ModelShape> zoo_model_shape(std::string_view name) {
  const auto d = detail::llm_shape(name);
  if (!d) return std::nullopt;
  jobs::ModelShape s;
  s.layers = d->layers, s.hidden = d->d_model, s.heads = d->heads, s.kv_heads = d->kv_heads;
  s.ffn_hidden = d->d_ff, s.vocab = d->vocab, s.experts = d->experts, s.top_k = d->active_experts;
  s.gated = d->gated;
  return s;
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
  // The Llama 3 Herd of Models report, table 3 (vocabulary 128,000 + 256 special tokens); section 3.4.2:
  // long-context pre-training takes all three from 8K to 128K tokens: 8K is the default sequence, 128K the
  // longest accepted.
  const auto llama3 = [&](std::uint32_t L, std::uint32_t d, std::uint32_t h, std::uint32_t ff) {
    DecoderShape s = shape(L, d, h, 8, ff, 128256, 8192);
    s.max_seq = 131072;
    return s;
  };
  if (name == "llama3_8b") return llama3(32, 4096, 32, 14336);
  if (name == "llama3_70b") return llama3(80, 8192, 64, 28672);
  if (name == "llama31_405b") return llama3(126, 16384, 128, 53248);
  // Jiang et al. 2024 (Mixtral of Experts) table 1: Mistral 7B's layout, 8 experts, top 2.
  if (name == "mixtral_8x7b") return shape(32, 4096, 32, 8, 14336, 32000, 4096, 8, 2);
  // Mixtral 8x22B v0.1 (HuggingFace mistralai/Mixtral-8x22B-v0.1 config.json): 56 layers, d 6144, 48/8
  // heads, 8 SwiGLU experts of 16384, top 2, vocabulary 32000, 65,536-token context.
  if (name == "mixtral_8x22b") return shape(56, 6144, 48, 8, 16384, 32000, 65536, 8, 2);
  // Grok-1 (xai-org/grok-1 run.py and model.py): 64 layers, d 48 x 128, 48/8 heads, 8 GeGLU experts of
  // int(8 x 6144) x 2 / 3 = 32768, top 2, vocabulary 128 x 1024, 8,192 tokens; RMSNorm before and after
  // attention and the experts (4 per layer); the output projection is the token embedding (tied).
  if (name == "grok1_314b") {
    DecoderShape s = shape(64, 6144, 48, 8, 32768, 131072, 8192, 8, 2);
    s.tied = true, s.norms_per_layer = 4;
    return s;
  }
  // Nemotron (NeMo's Nemotron3Config8B / 22B, Nemotron4Config15B / 340B; the Nemotron-4 340B model card's
  // model_config.yaml): LayerNorm with a bias ("layernorm1p"), a plain squared-ReLU feed-forward, rotary
  // positions on half of each head, no linear biases, untied embeddings, vocabulary 256,000, 4,096 tokens.
  const auto nemotron = [&](std::uint32_t L, std::uint32_t d, std::uint32_t h, std::uint32_t kv,
                            std::uint32_t ff) {
    DecoderShape s = shape(L, d, h, kv, ff, 256000, 4096);
    s.gated = false, s.norm_bias = true;
    return s;
  };
  if (name == "nemotron3_8b") return nemotron(32, 4096, 32, 32, 16384);
  if (name == "nemotron3_22b") return nemotron(40, 6144, 48, 48, 24576);
  if (name == "nemotron4_15b") return nemotron(32, 6144, 48, 8, 24576);
  if (name == "nemotron4_340b") return nemotron(96, 18432, 96, 8, 73728);
  return std::nullopt;
}

}  // namespace detail
}  // namespace fleetwatt::models
