// Model zoo: layer-by-layer parameter and MAC counting. A small shape tracker walks each architecture the way
// its reference implementation builds it (torchvision for the CNNs and ViT, HuggingFace for BERT and GPT-2),
// so parameter counts match exactly and MACs match the published figures.
#include "fleetwatt/models/zoo/model_zoo.hpp"

#include "llm_shapes.hpp"
#include "zoo_ops.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <stdexcept>

namespace fleetwatt::models {
namespace {

using detail::Ops;

/// Tracks the activation shape (channels x height x width) through a CNN and accumulates counts.
class ConvCounter {
 public:
  ConvCounter(std::uint32_t channels, std::uint32_t image) : c_(channels), h_(image), w_(image) {}

  struct Shape {
    std::uint32_t c, h, w;
  };
  [[nodiscard]] Shape shape() const { return {c_, h_, w_}; }
  void set_shape(Shape s) { c_ = s.c, h_ = s.h, w_ = s.w; }
  [[nodiscard]] std::uint32_t channels() const { return c_; }

  void conv(std::uint32_t out, std::uint32_t k, std::uint32_t stride, std::uint32_t pad,
            std::uint32_t groups = 1, bool bias = false) {
    const std::uint32_t ho = out_size(h_, k, stride, pad), wo = out_size(w_, k, stride, pad);
    const double weights = static_cast<double>(out) * (c_ / groups) * k * k;
    ops_.gemm(groups == 1 ? OpClass::tensor : OpClass::vector, weights * ho * wo, elements(),
              static_cast<double>(out) * ho * wo, weights + (bias ? out : 0));
    params_ += weights + (bias ? out : 0);
    macs_ += weights * ho * wo;
    tensors_ += bias ? 2 : 1;
    ++layers_;
    c_ = out, h_ = ho, w_ = wo;
    activations_ += static_cast<double>(c_) * h_ * w_;
  }
  void batch_norm() {
    ops_.elementwise(elements(), elements(), 5.0, 2.0 * c_);
    params_ += 2.0 * c_;
    tensors_ += 2;
    activations_ += static_cast<double>(c_) * h_ * w_;
  }
  void pool(std::uint32_t k, std::uint32_t stride, std::uint32_t pad) {
    const double in = elements();
    h_ = out_size(h_, k, stride, pad), w_ = out_size(w_, k, stride, pad);
    ops_.elementwise(elements(), in);
  }
  void adaptive_pool(std::uint32_t side) {
    const double in = elements();
    h_ = side, w_ = side;
    ops_.elementwise(elements(), in);
  }
  /// ReLU / ReLU6 (memory only: no parameters, no MACs).
  void relu() { ops_.elementwise(elements(), elements()); }
  /// Residual add of a same-shaped tensor.
  void residual_add() { ops_.elementwise(elements(), 2.0 * elements()); }
  /// Concatenation of branches into the current shape followed by ShuffleNet's channel shuffle (a copy).
  void concat_shuffle() {
    ops_.elementwise(elements(), elements());
    ops_.elementwise(elements(), elements());
  }
  /// Flattens the activation and applies a linear layer.
  void linear(std::uint32_t out, bool bias = true) {
    const double in = static_cast<double>(c_) * h_ * w_;
    ops_.gemm(OpClass::tensor, in * out, in, out, in * out + (bias ? out : 0));
    params_ += in * out + (bias ? out : 0);
    macs_ += in * out;
    tensors_ += bias ? 2 : 1;
    ++layers_;
    c_ = out, h_ = 1, w_ = 1;
    activations_ += out;
  }

  [[nodiscard]] ModelCount result(std::string name, std::uint32_t image) const {
    ModelCount m;
    m.name = std::move(name);
    m.family = ModelFamily::cnn;
    m.params = params_;
    m.forward_macs = macs_;
    m.forward_flops = 2.0 * macs_;
    m.input_size = image;
    m.weight_layers = layers_;
    m.param_tensors = tensors_;
    m.activation_elements = activations_;
    m.ops = ops_.w;
    return m;
  }

 private:
  [[nodiscard]] double elements() const { return static_cast<double>(c_) * h_ * w_; }

  static std::uint32_t out_size(std::uint32_t in, std::uint32_t k, std::uint32_t stride, std::uint32_t pad) {
    if (in + 2 * pad < k) throw std::invalid_argument("input too small for the architecture's downsampling");
    return (in + 2 * pad - k) / stride + 1;
  }

  std::uint32_t c_, h_, w_;
  double params_ = 0.0, macs_ = 0.0, activations_ = 0.0;
  std::uint32_t layers_ = 0, tensors_ = 0;
  Ops ops_;
};

void require_image(std::string_view model, std::uint32_t image, std::uint32_t minimum) {
  if (image < minimum)
    throw std::invalid_argument(fmt::format(
        "{}: image size {} is too small (the architecture needs at least {})", model, image, minimum));
}

/// Counts of one Transformer encoder/decoder stack over `tokens` tokens (HuggingFace / torchvision layout:
/// fused or separate Q, K, V with biases, output projection, two LayerNorms, two-layer MLP).
struct StackCount {
  double params = 0.0, macs = 0.0, activations = 0.0;
  std::uint32_t layers = 0, tensors = 0;
  Ops ops;
};
StackCount transformer_stack(std::uint32_t n_layers, double d, double ff, double tokens, double heads) {
  StackCount s;
  const double T = tokens, td = tokens * d, tff = tokens * ff, scores = heads * tokens * tokens;
  for (std::uint32_t l = 0; l < n_layers; ++l) {
    // Q, K, V, output projection, MLP up and down: 6 GEMMs reading 5 T d + T ff and writing as much.
    s.ops.add(OpClass::tensor, 2.0 * T * (4.0 * d * d + 2.0 * d * ff), 5.0 * td + tff, 5.0 * td + tff,
              (4.0 * d * d + 4.0 * d) + (2.0 * d * ff + ff + d), 6.0);
    // QK^T (reads Q, K; writes the scores), scale and mask, softmax (each reads and writes the scores),
    // AV (reads the probabilities and V, writes T d).
    s.ops.add(OpClass::attention, 2.0 * (2.0 * T * T * d), 3.0 * td + 3.0 * scores, td + 3.0 * scores, 0.0,
              4.0);
    s.ops.add(OpClass::memory, 7.0 * scores, 0.0, 0.0, 0.0, 0.0);  // the score chain's element-wise FLOPs
    s.ops.elementwise(td, td, 5.0, 2.0 * d);                       // two LayerNorms
    s.ops.elementwise(td, td, 5.0, 2.0 * d);
    s.ops.elementwise(tff, tff);      // GELU (OPT: ReLU)
    s.ops.elementwise(td, 2.0 * td);  // two residual adds
    s.ops.elementwise(td, 2.0 * td);
  }
  const double per_layer_params = (4.0 * d * d + 4.0 * d) + (2.0 * d * ff + ff + d) + 4.0 * d;
  // Linear layers over every token, plus the two attention matmuls Q K^T and A V (tokens^2 x d each).
  const double per_layer_macs = tokens * (4.0 * d * d + 2.0 * d * ff) + 2.0 * tokens * tokens * d;
  s.params = n_layers * per_layer_params;
  s.macs = n_layers * per_layer_macs;
  // Outputs of Q, K, V, attention, output projection, two LayerNorms, MLP up and down, and the two
  // heads x tokens^2 score and probability matrices (64-wide heads).
  s.activations = n_layers * (tokens * (8.0 * d + ff) + 2.0 * (d / 64.0) * tokens * tokens);
  s.layers = n_layers * 6;    // Q, K, V, output, two MLP layers
  s.tensors = n_layers * 16;  // 6 weights + 6 biases + 2 LayerNorms x 2
  return s;
}

ModelCount finish(std::string name, ModelFamily family, double params, double macs, std::uint32_t input,
                  std::uint32_t layers, std::uint32_t tensors, double activations) {
  ModelCount m;
  m.name = std::move(name);
  m.family = family;
  m.params = params;
  m.forward_macs = macs;
  m.forward_flops = 2.0 * macs;
  m.input_size = input;
  m.weight_layers = layers;
  m.param_tensors = tensors;
  m.activation_elements = activations;
  return m;
}

}  // namespace

const char* to_string(OpClass c) noexcept {
  switch (c) {
    case OpClass::tensor:
      return "tensor";
    case OpClass::vector:
      return "vector";
    case OpClass::memory:
      return "memory";
    case OpClass::attention:
      return "attention";
  }
  return "tensor";
}

ModelCount resnet(int depth, std::uint32_t image, std::uint32_t classes) {
  std::array<int, 4> blocks{};
  bool bottleneck = false;
  switch (depth) {
    case 18:
      blocks = {2, 2, 2, 2};
      break;
    case 34:
      blocks = {3, 4, 6, 3};
      break;
    case 50:
      blocks = {3, 4, 6, 3}, bottleneck = true;
      break;
    case 101:
      blocks = {3, 4, 23, 3}, bottleneck = true;
      break;
    case 152:
      blocks = {3, 8, 36, 3}, bottleneck = true;
      break;
    default:
      throw std::invalid_argument(fmt::format("resnet: depth {} is not one of 18, 34, 50, 101, 152", depth));
  }
  const std::string name = fmt::format("resnet{}", depth);
  require_image(name, image, 32);
  ConvCounter n(3, image);
  n.conv(64, 7, 2, 3);
  n.batch_norm();
  n.relu();
  n.pool(3, 2, 1);
  const std::uint32_t expansion = bottleneck ? 4 : 1;
  for (int stage = 0; stage < 4; ++stage) {
    const std::uint32_t width = 64u << stage;
    for (int b = 0; b < blocks[static_cast<std::size_t>(stage)]; ++b) {
      const std::uint32_t stride = (stage > 0 && b == 0) ? 2 : 1;
      const auto in = n.shape();
      if (bottleneck) {
        n.conv(width, 1, 1, 0), n.batch_norm(), n.relu();
        n.conv(width, 3, stride, 1), n.batch_norm(), n.relu();  // v1.5: the stride sits on the 3x3 conv
        n.conv(width * expansion, 1, 1, 0), n.batch_norm();
      } else {
        n.conv(width, 3, stride, 1), n.batch_norm(), n.relu();
        n.conv(width, 3, 1, 1), n.batch_norm();
      }
      const auto out = n.shape();
      if (stride != 1 || in.c != width * expansion) {  // projection shortcut
        n.set_shape(in);
        n.conv(width * expansion, 1, stride, 0), n.batch_norm();
        n.set_shape(out);
      }
      n.residual_add(), n.relu();
    }
  }
  n.adaptive_pool(1);
  n.linear(classes);
  return n.result(name, image);
}

ModelCount vgg16(std::uint32_t image, std::uint32_t classes) {
  require_image("vgg16", image, 32);
  ConvCounter n(3, image);
  const std::array<int, 18> cfg{64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0};
  for (int c : cfg) {
    if (c == 0) {
      n.pool(2, 2, 0);
    } else {
      n.conv(static_cast<std::uint32_t>(c), 3, 1, 1, 1, true), n.relu();
    }
  }
  n.adaptive_pool(7);
  n.linear(4096), n.relu();  // the classifier's dropouts are not counted
  n.linear(4096), n.relu();
  n.linear(classes);
  return n.result("vgg16", image);
}

ModelCount shufflenet_v2(std::uint32_t image, std::uint32_t classes) {
  require_image("shufflenet_v2", image, 16);
  const bool cifar = image < 64;
  ConvCounter n(3, image);
  if (cifar) {
    n.conv(24, 3, 1, 1), n.batch_norm(), n.relu();
  } else {
    n.conv(24, 3, 2, 1), n.batch_norm(), n.relu();
    n.pool(3, 2, 1);
  }
  const std::array<std::uint32_t, 3> repeats{4, 8, 4}, widths{116, 232, 464};
  for (std::size_t stage = 0; stage < 3; ++stage) {
    const std::uint32_t out = widths[stage], half = out / 2;
    for (std::uint32_t i = 0; i < repeats[stage]; ++i) {
      const auto in = n.shape();
      if (i == 0) {                                   // downsampling unit: both branches see the whole input
        n.conv(in.c, 3, 2, 1, in.c), n.batch_norm();  // depthwise
        n.conv(half, 1, 1, 0), n.batch_norm(), n.relu();
        const auto left = n.shape();
        n.set_shape(in);
        n.conv(half, 1, 1, 0), n.batch_norm(), n.relu();
        n.conv(half, 3, 2, 1, half), n.batch_norm();
        n.conv(half, 1, 1, 0), n.batch_norm(), n.relu();
        n.set_shape({left.c + half, left.h, left.w});
        n.concat_shuffle();
      } else {  // basic unit: half the channels pass through, the other half go through the branch
        n.set_shape({half, in.h, in.w});  // chunk: a view
        n.conv(half, 1, 1, 0), n.batch_norm(), n.relu();
        n.conv(half, 3, 1, 1, half), n.batch_norm();
        n.conv(half, 1, 1, 0), n.batch_norm(), n.relu();
        n.set_shape(in);
        n.concat_shuffle();
      }
    }
  }
  n.conv(1024, 1, 1, 0), n.batch_norm(), n.relu();
  n.adaptive_pool(1);  // torchvision: mean over the spatial dimensions
  n.linear(classes);
  return n.result("shufflenet_v2", image);
}

ModelCount mobilenet_v2(std::uint32_t image, std::uint32_t classes) {
  require_image("mobilenet_v2", image, 32);
  ConvCounter n(3, image);
  n.conv(32, 3, 2, 1), n.batch_norm(), n.relu();  // ReLU6
  struct Setting {
    std::uint32_t t, c, reps, s;
  };
  const std::array<Setting, 7> settings{{{1, 16, 1, 1},
                                         {6, 24, 2, 2},
                                         {6, 32, 3, 2},
                                         {6, 64, 4, 2},
                                         {6, 96, 3, 1},
                                         {6, 160, 3, 2},
                                         {6, 320, 1, 1}}};
  for (const auto& st : settings) {
    for (std::uint32_t i = 0; i < st.reps; ++i) {
      const std::uint32_t hidden = n.channels() * st.t;
      const std::uint32_t stride = i == 0 ? st.s : 1;
      const bool residual = stride == 1 && n.channels() == st.c;
      if (st.t != 1) n.conv(hidden, 1, 1, 0), n.batch_norm(), n.relu();
      n.conv(hidden, 3, stride, 1, hidden), n.batch_norm(), n.relu();  // depthwise
      n.conv(st.c, 1, 1, 0), n.batch_norm();
      if (residual) n.residual_add();
    }
  }
  n.conv(1280, 1, 1, 0), n.batch_norm(), n.relu();
  n.adaptive_pool(1);
  n.linear(classes);
  return n.result("mobilenet_v2", image);
}

ModelCount vit(std::string_view variant, std::uint32_t image, std::uint32_t patch, std::uint32_t classes) {
  std::uint32_t layers = 0, d = 0, ff = 0;
  if (variant == "s") {
    layers = 12, d = 384, ff = 1536;
  } else if (variant == "b") {
    layers = 12, d = 768, ff = 3072;
  } else if (variant == "l") {
    layers = 24, d = 1024, ff = 4096;
  } else {
    throw std::invalid_argument(fmt::format("vit: variant '{}' is not one of s, b, l", variant));
  }
  const std::string name = fmt::format("vit-{}{}", variant, patch);
  if (patch == 0 || image < patch || image % patch != 0)
    throw std::invalid_argument(
        fmt::format("{}: image size {} is not a positive multiple of the patch size {}", name, image, patch));
  const double patches = static_cast<double>(image / patch) * (image / patch);
  const double tokens = patches + 1;  // + class token
  const double dd = d;
  const double embed_params = dd * 3 * patch * patch + dd /*bias*/ + dd /*class token*/ + tokens * dd;
  const double embed_macs = patches * dd * 3 * patch * patch;
  const StackCount stack = transformer_stack(layers, dd, ff, tokens, dd / 64);
  const double head_params = 2 * dd /*final LayerNorm*/ + dd * classes + classes;
  const double head_macs = dd * classes;  // the head reads the class token only
  Ops ops;
  const double image_elements = 3.0 * image * image;
  ops.gemm(OpClass::tensor, embed_macs, image_elements, patches * dd, dd * 3 * patch * patch + dd);
  ops.elementwise(tokens * dd, tokens * dd, 1.0, dd);                 // prepend the class token
  ops.elementwise(tokens * dd, 2.0 * tokens * dd, 1.0, tokens * dd);  // add the position embedding
  ops.merge(stack.ops);
  ops.elementwise(tokens * dd, tokens * dd, 5.0, 2 * dd);  // final LayerNorm (over every token)
  ops.gemm(OpClass::tensor, head_macs, dd, classes, dd * classes + classes);
  ModelCount m = finish(name, ModelFamily::transformer, embed_params + stack.params + head_params,
                        embed_macs + stack.macs + head_macs, image, stack.layers + 2, stack.tensors + 8,
                        stack.activations + 2 * tokens * dd);
  m.ops = ops.w;
  return m;
}

ModelCount bert(std::string_view variant, std::uint32_t seq_len) {
  std::uint32_t layers = 0, d = 0;
  if (variant == "base") {
    layers = 12, d = 768;
  } else if (variant == "large") {
    layers = 24, d = 1024;
  } else {
    throw std::invalid_argument(fmt::format("bert: variant '{}' is not one of base, large", variant));
  }
  const std::string name = fmt::format("bert-{}", variant);
  if (seq_len == 0 || seq_len > 512)
    throw std::invalid_argument(fmt::format("{}: sequence length {} is not in 1..512", name, seq_len));
  const double dd = d, vocab = 30522, positions = 512, types = 2;
  const double embed_params = (vocab + positions + types) * dd + 2 * dd;
  const StackCount stack = transformer_stack(layers, dd, 4 * dd, seq_len, dd / 64);
  const double pooler_params = dd * dd + dd, pooler_macs = dd * dd;  // on the [CLS] token only
  Ops ops;
  const double td = seq_len * dd;
  for (int table = 0; table < 3; ++table) ops.elementwise(td, td);  // word, position, type lookups
  ops.elementwise(td, 2.0 * td), ops.elementwise(td, 2.0 * td);     // two adds
  ops.elementwise(td, td, 5.0, 2.0 * dd);                           // embedding LayerNorm
  ops.merge(stack.ops);
  ops.gemm(OpClass::tensor, pooler_macs, dd, dd, pooler_params);
  ops.elementwise(dd, dd);  // tanh
  ModelCount m = finish(name, ModelFamily::transformer, embed_params + stack.params + pooler_params,
                        stack.macs + pooler_macs, seq_len, stack.layers + 1, stack.tensors + 7,
                        stack.activations + 2.0 * seq_len * dd);
  m.ops = ops.w;
  return m;
}

ModelCount gpt2(std::string_view variant, std::uint32_t seq_len) {
  std::uint32_t layers = 0, d = 0;
  if (variant == "small") {
    layers = 12, d = 768;
  } else if (variant == "medium") {
    layers = 24, d = 1024;
  } else if (variant == "large") {
    layers = 36, d = 1280;
  } else {
    throw std::invalid_argument(
        fmt::format("gpt2: variant '{}' is not one of small, medium, large", variant));
  }
  const std::string name = variant == "large" ? "gpt2_large" : fmt::format("gpt2-{}", variant);
  if (seq_len == 0 || seq_len > 1024)
    throw std::invalid_argument(fmt::format("{}: sequence length {} is not in 1..1024", name, seq_len));
  TransformerShape shape;
  shape.layers = layers, shape.d_model = d, shape.heads = d / 64, shape.seq_len = seq_len;
  shape.vocab = 50257, shape.max_positions = 1024, shape.lm_head = true;
  ModelCount m = transformer(shape);
  m.name = name;
  return m;
}

ModelCount gpt3(std::string_view variant, std::uint32_t seq_len) {
  TransformerShape shape;
  std::string name;
  if (variant == "xl") {
    shape.layers = 24, shape.d_model = 2048, shape.heads = 16, name = "gpt3_xl";
  } else if (variant == "2.7b") {
    shape.layers = 32, shape.d_model = 2560, shape.heads = 32, name = "gpt3_27";
  } else if (variant == "6.7b") {
    shape.layers = 32, shape.d_model = 4096, shape.heads = 32, name = "gpt3_67";
  } else if (variant == "13b") {
    // Table 2.1 gives d_model 5140 with 40 heads of 128 (5120): the projections are counted at d_model.
    shape.layers = 40, shape.d_model = 5140, shape.heads = 40, shape.d_head = 128, name = "gpt3_13b";
  } else if (variant == "175b") {
    shape.layers = 96, shape.d_model = 12288, shape.heads = 96, name = "gpt3_175b";
  } else if (variant == "5b") {
    // NeMo's GPT-3 5B (NeMo-Framework-Launcher conf/training/gpt3/5b.yaml, NeMo 2.0 GPTConfig5B).
    shape.layers = 24, shape.d_model = 4096, shape.heads = 32, name = "gpt3_5b";
  } else if (variant == "20b") {
    // NeMo's GPT-3 20B (conf/training/gpt3/20b.yaml, GPTConfig20B).
    shape.layers = 44, shape.d_model = 6144, shape.heads = 48, name = "gpt3_20b";
  } else {
    throw std::invalid_argument(
        fmt::format("gpt3: variant '{}' is not one of xl, 2.7b, 5b, 6.7b, 13b, 20b, 175b", variant));
  }
  if (seq_len == 0 || seq_len > 2048)
    throw std::invalid_argument(fmt::format("{}: sequence length {} is not in 1..2048", name, seq_len));
  shape.d_ff = 4 * shape.d_model, shape.seq_len = seq_len;
  shape.vocab = 50257, shape.max_positions = 2048, shape.lm_head = true;
  ModelCount m = transformer(shape);
  m.name = name;
  return m;
}

ModelCount opt(std::string_view variant, std::uint32_t seq_len) {
  if (variant != "1.3b") throw std::invalid_argument(fmt::format("opt: variant '{}' is not 1.3b", variant));
  if (seq_len == 0 || seq_len > 2048)
    throw std::invalid_argument(fmt::format("opt_13: sequence length {} is not in 1..2048", seq_len));
  TransformerShape shape;
  shape.layers = 24, shape.d_model = 2048, shape.heads = 32, shape.d_ff = 8192, shape.seq_len = seq_len;
  // OPT's learned positions are offset by 2, so the table has 2048 + 2 rows.
  shape.vocab = 50272, shape.max_positions = 2050, shape.lm_head = true;
  ModelCount m = transformer(shape);
  m.name = "opt_13";
  return m;
}

ModelCount neumf(std::uint32_t users, std::uint32_t items, std::uint32_t factors, std::uint32_t mlp_layers) {
  if (users == 0 || items == 0 || factors == 0 || mlp_layers == 0 || mlp_layers > 16)
    throw std::invalid_argument("neumf: users, items, factors must be positive and mlp_layers in 1..16");
  const double f = factors, mlp_embed = f * std::pow(2.0, mlp_layers - 1);
  double params = (static_cast<double>(users) + items) * (f + mlp_embed), macs = 0.0,
         acts = 2 * (f + mlp_embed);
  double width = 2 * mlp_embed;  // concatenated user and item MLP embeddings
  Ops ops;
  ops.elementwise(f, f), ops.elementwise(f, f);  // GMF user and item lookups (one row each)
  ops.elementwise(mlp_embed, mlp_embed), ops.elementwise(mlp_embed, mlp_embed);  // MLP lookups
  // The GMF product is counted in forward_macs, so it is GEMM-like work that misses the GEMM peak: vector.
  ops.gemm(OpClass::vector, f, 2 * f, f, 0.0);
  ops.elementwise(width, width);  // concatenate the MLP embeddings
  for (std::uint32_t l = 0; l < mlp_layers; ++l) {
    params += width * (width / 2) + width / 2;
    macs += width * (width / 2);
    ops.gemm(OpClass::tensor, width * (width / 2), width, width / 2, width * (width / 2) + width / 2);
    ops.elementwise(width / 2, width / 2);  // ReLU
    acts += width / 2;
    width /= 2;
  }
  params += 2 * f + 1;            // prediction layer over [GMF, MLP]
  macs += 2 * f + f;              // prediction layer and the GMF elementwise product
  ops.elementwise(2 * f, 2 * f);  // concatenate [GMF, MLP]
  ops.gemm(OpClass::tensor, 2 * f, 2 * f, 1, 2 * f + 1);
  ops.elementwise(1, 1);  // sigmoid
  ModelCount m =
      finish("neumf", ModelFamily::mlp, params, macs, 0, mlp_layers + 1, 4 + 2 * (mlp_layers + 1), acts + 1);
  m.ops = ops.w;
  return m;
}

ModelCount transformer(const TransformerShape& s) {
  if (s.layers == 0 || s.d_model == 0 || s.heads == 0 || s.seq_len == 0)
    throw std::invalid_argument("transformer: layers, d_model, heads and seq_len must be positive");
  if (s.d_head == 0 && s.d_model % s.heads != 0)
    throw std::invalid_argument(
        fmt::format("transformer: d_model {} is not divisible by heads {}", s.d_model, s.heads));
  const std::uint32_t positions = s.max_positions ? s.max_positions : s.seq_len;
  if (s.seq_len > positions)
    throw std::invalid_argument(fmt::format(
        "transformer: sequence length {} exceeds the {} position embeddings", s.seq_len, positions));
  const double d = s.d_model, ff = s.d_ff ? s.d_ff : 4.0 * s.d_model;
  const StackCount stack = transformer_stack(s.layers, d, ff, s.seq_len, s.heads);
  const double embed_params = (static_cast<double>(s.vocab) + positions) * d;
  const double final_norm = 2 * d;
  // The output projection reuses the token embedding (tied), so it adds MACs but no parameters.
  const double head_macs = (s.vocab && s.lm_head) ? static_cast<double>(s.seq_len) * d * s.vocab : 0.0;
  Ops ops;
  const double td = s.seq_len * d;
  if (s.vocab) ops.elementwise(td, td);  // token lookup (without a vocabulary the input is embeddings)
  ops.elementwise(td, td);               // position lookup
  ops.elementwise(td, 2.0 * td);         // add
  ops.merge(stack.ops);
  Ops head;
  head.elementwise(td, td, 5.0, final_norm);
  if (head_macs > 0)  // the tied projection reads the whole token table
    head.gemm(OpClass::tensor, head_macs, td, static_cast<double>(s.seq_len) * s.vocab,
              static_cast<double>(s.vocab) * d);
  ops.merge(head);
  ModelCount m =
      finish(fmt::format("transformer(L={},d={},h={},seq={},V={})", s.layers, s.d_model, s.heads, s.seq_len,
                         s.vocab),
             ModelFamily::transformer, embed_params + stack.params + final_norm, stack.macs + head_macs,
             s.seq_len, stack.layers + (head_macs > 0 ? 1 : 0), stack.tensors + 4,
             stack.activations + 2.0 * s.seq_len * d +
                 (head_macs > 0 ? static_cast<double>(s.seq_len) * s.vocab : 0.0));
  m.ops = ops.w;
  if (head_macs > 0) m.head_ops = head.w;  // an encoder's final norm is not a pipeline head
  m.blocks = s.layers, m.d_model = s.d_model, m.heads = s.heads;
  m.d_attention = s.d_head ? s.heads * s.d_head : s.d_model;
  m.active_params = m.params;
  m.kv_heads = s.heads, m.d_ff = static_cast<std::uint32_t>(ff), m.ffn_in_matrices = 1;
  m.vocab = head_macs > 0 ? s.vocab : 0;
  return m;
}

ModelCount recurrent(const RecurrentShape& s) {
  if (s.layers == 0 || s.input_size == 0 || s.hidden_size == 0 || s.seq_len == 0)
    throw std::invalid_argument("recurrent: layers, input_size, hidden_size and seq_len must be positive");
  const double gates = s.gru ? 3.0 : 4.0, h = s.hidden_size, dirs = s.bidirectional ? 2.0 : 1.0;
  double params = 0.0, macs_per_step = 0.0;
  const double steps = s.seq_len;
  Ops ops;
  for (std::uint32_t l = 0; l < s.layers; ++l) {
    const double in = l == 0 ? s.input_size : dirs * h;
    // PyTorch layout: W_ih (gates*h x in), W_hh (gates*h x h), two bias vectors, per direction.
    params += dirs * (gates * h * (in + h) + 2 * gates * h);
    macs_per_step += dirs * gates * h * (in + h);
    for (int dir = 0; dir < static_cast<int>(dirs); ++dir) {
      // cuDNN: one GEMM projects every step's input; then per step a GEMM of the previous hidden state (it
      // reads W_hh again each step) and one fused point-wise kernel for the gates and the state update.
      ops.gemm(OpClass::tensor, steps * gates * h * in, steps * in, steps * gates * h, gates * h * (in + 1));
      ops.add(OpClass::tensor, 2.0 * steps * gates * h * h, steps * h, steps * gates * h,
              steps * gates * h * (h + 1), steps);
      const double state_out = s.gru ? h : 2.0 * h;  // h (and the LSTM cell state)
      ops.add(OpClass::memory, steps * (2.0 * gates + 2.0) * h, steps * (2.0 * gates * h + h),
              steps * state_out, 0.0, steps);
    }
  }
  ModelCount m =
      finish(fmt::format("{}(layers={},input={},hidden={},seq={}{})", s.gru ? "gru" : "lstm", s.layers,
                         s.input_size, s.hidden_size, s.seq_len, s.bidirectional ? ",bidirectional" : ""),
             ModelFamily::recurrent, params, macs_per_step * s.seq_len, s.seq_len,
             s.layers * static_cast<std::uint32_t>(dirs) * 2, s.layers * static_cast<std::uint32_t>(dirs) * 4,
             // Per step and direction: gate pre-activations and activations, cell and hidden state.
             s.layers * dirs * s.seq_len * (2.0 * gates + 2.0) * h);
  m.ops = ops.w;
  return m;
}

const std::vector<ZooEntry>& zoo_entries() {
  static const std::vector<ZooEntry> entries{
      {"resnet18", "image", 224, "ResNet-18 (torchvision)"},
      {"resnet34", "image", 224, "ResNet-34 (torchvision)"},
      {"resnet50", "image", 224, "ResNet-50 v1.5 (torchvision)"},
      {"resnet101", "image", 224, "ResNet-101 v1.5 (torchvision)"},
      {"resnet152", "image", 224, "ResNet-152 v1.5 (torchvision)"},
      {"vgg16", "image", 224, "VGG16 without batch norm (torchvision)"},
      {"mobilenet_v2", "image", 224, "MobileNetV2 width 1.0 (torchvision)"},
      {"shufflenet_v2", "image", 224, "ShuffleNetV2 x1.0 (torchvision; CIFAR stem below 64 px)"},
      {"vit-s16", "image", 224, "ViT-S/16"},
      {"vit-b16", "image", 224, "ViT-B/16 (torchvision)"},
      {"vit-l16", "image", 224, "ViT-L/16 (torchvision)"},
      {"bert-base", "sequence", 512, "BERT-base uncased with pooler (HuggingFace)"},
      {"bert-large", "sequence", 512, "BERT-large with pooler (HuggingFace)"},
      {"gpt2-small", "sequence", 1024, "GPT-2 small, tied output embedding"},
      {"gpt2-medium", "sequence", 1024, "GPT-2 medium, tied output embedding"},
      {"gpt2_large", "sequence", 1024, "GPT-2 large, tied output embedding (HuggingFace gpt2-large)"},
      {"gpt3_xl", "sequence", 2048,
       "GPT-3 XL 1.3B (Brown et al. 2020 table 2.1; GPT-2 layout, dense attention, tied embedding)"},
      {"gpt3_27", "sequence", 2048,
       "GPT-3 2.7B (Brown et al. 2020 table 2.1; GPT-2 layout, dense attention, tied embedding)"},
      {"gpt3_67", "sequence", 2048,
       "GPT-3 6.7B (Brown et al. 2020 table 2.1: 32 layers, d_model 4096, 32 heads)"},
      {"gpt3_13b", "sequence", 2048,
       "GPT-3 13B (Brown et al. 2020 table 2.1: 40 layers, d_model 5140, 40 heads of 128)"},
      {"gpt3_175b", "sequence", 2048,
       "GPT-3 175B (Brown et al. 2020 table 2.1: 96 layers, d_model 12288, 96 heads of 128)"},
      {"gpt3_5b", "sequence", 2048, "NeMo's GPT-3 5B (24 layers, d_model 4096, 32 heads; GPT-2 layout)"},
      {"gpt3_20b", "sequence", 2048, "NeMo's GPT-3 20B (44 layers, d_model 6144, 48 heads; GPT-2 layout)"},
      {"opt_13", "sequence", 2048, "OPT-1.3B (HuggingFace facebook/opt-1.3b, tied lm_head)"},
      {"llama2_7b", "sequence", 4096, "Llama 2 7B (Touvron et al. 2023: 32 layers, d 4096, SwiGLU 11008)"},
      {"llama2_13b", "sequence", 4096, "Llama 2 13B (Touvron et al. 2023: 40 layers, d 5120, SwiGLU 13824)"},
      {"llama2_70b", "sequence", 4096,
       "Llama 2 70B (Touvron et al. 2023: 80 layers, d 8192, 64 heads, GQA 8 KV heads, SwiGLU 28672)"},
      {"llama3_8b", "sequence", 8192,
       "Llama 3 8B (Llama 3 report table 3: 32 layers, d 4096, FFN 14336, 32/8 heads, vocab 128256)"},
      {"llama3_70b", "sequence", 8192,
       "Llama 3 70B (Llama 3 report table 3: 80 layers, d 8192, FFN 28672, 64/8 heads, vocab 128256)"},
      {"llama31_405b", "sequence", 8192,
       "Llama 3.1 405B (Llama 3 report table 3: 126 layers, d 16384, FFN 53248, 128/8 heads)"},
      {"mixtral_8x7b", "sequence", 4096,
       "Mixtral 8x7B (Jiang et al. 2024: Mistral-7B layout, 8 SwiGLU experts of 14336, 2 active per token)"},
      {"mixtral_8x22b", "sequence", 65536,
       "Mixtral 8x22B v0.1 (56 layers, d 6144, 48/8 heads, 8 SwiGLU experts of 16384, 2 active per token)"},
      {"grok1_314b", "sequence", 8192,
       "Grok-1 (xAI: 64 layers, d 6144, 48/8 heads, 8 GeGLU experts of 32768, 2 active, tied embedding)"},
      {"nemotron3_8b", "sequence", 4096,
       "Nemotron-3 8B (NeMo: 32 layers, d 4096, 32 heads, squared-ReLU FFN 16384, vocab 256000)"},
      {"nemotron3_22b", "sequence", 4096,
       "Nemotron-3 22B (NeMo: 40 layers, d 6144, 48 heads, squared-ReLU FFN 24576, vocab 256000)"},
      {"nemotron4_15b", "sequence", 4096,
       "Nemotron-4 15B (Parmar et al. 2024: 32 layers, d 6144, 48/8 heads, squared-ReLU FFN 24576)"},
      {"nemotron4_340b", "sequence", 4096,
       "Nemotron-4 340B (NVIDIA 2024: 96 layers, d 18432, 96/8 heads, squared-ReLU FFN 73728)"},
      {"neumf", "none", 0, "NeuMF recommender (factor 32, 3 MLP layers) on MovieLens-1M"},
  };
  return entries;
}

namespace {
/// Other spellings of zoo names (the NeuSight data's underscores, the zoo's hyphens).
constexpr std::array<std::array<std::string_view, 2>, 14> kAliases{{{"bert_base", "bert-base"},
                                                                    {"gpt3-6.7b", "gpt3_67"},
                                                                    {"gpt3-13b", "gpt3_13b"},
                                                                    {"gpt3-175b", "gpt3_175b"},
                                                                    {"llama-2-7b", "llama2_7b"},
                                                                    {"llama-2-13b", "llama2_13b"},
                                                                    {"llama-2-70b", "llama2_70b"},
                                                                    {"llama-3-8b", "llama3_8b"},
                                                                    {"llama3_405b", "llama31_405b"},
                                                                    {"bert_large", "bert-large"},
                                                                    {"gpt2_small", "gpt2-small"},
                                                                    {"gpt2_medium", "gpt2-medium"},
                                                                    {"gpt2-large", "gpt2_large"},
                                                                    {"opt-1.3b", "opt_13"}}};
const ZooEntry* find_entry(std::string_view name) {
  for (const auto& [alias, canonical] : kAliases)
    if (name == alias) name = canonical;
  for (const auto& e : zoo_entries())
    if (e.name == name) return &e;
  return nullptr;
}
}  // namespace

bool is_zoo_model(std::string_view name) {
  return find_entry(name) != nullptr;
}

bool known_by_flops_only(const jobs::ModelMetadata& meta) {
  return !is_zoo_model(meta.model) && !meta.shape.given();
}

ModelFamily named_model_family(std::string_view name) noexcept {
  return name.starts_with(kKerasPrefix) ? ModelFamily::cnn : ModelFamily::other;
}

std::string zoo_names() {
  std::string out;
  for (const auto& e : zoo_entries()) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

ModelCount count_model(std::string_view name, std::uint32_t input_size) {
  const ZooEntry* entry = find_entry(name);
  if (entry == nullptr)
    throw std::invalid_argument(fmt::format("unknown model '{}'; known models: {}", name, zoo_names()));
  const std::uint32_t in = input_size ? input_size : entry->default_input;
  name = entry->name;
  if (name == "resnet18") return resnet(18, in);
  if (name == "resnet34") return resnet(34, in);
  if (name == "resnet50") return resnet(50, in);
  if (name == "resnet101") return resnet(101, in);
  if (name == "resnet152") return resnet(152, in);
  if (name == "vgg16") return vgg16(in);
  if (name == "mobilenet_v2") return mobilenet_v2(in);
  if (name == "shufflenet_v2") return shufflenet_v2(in);
  if (name == "vit-s16") return vit("s", in);
  if (name == "vit-b16") return vit("b", in);
  if (name == "vit-l16") return vit("l", in);
  if (name == "bert-base") return bert("base", in);
  if (name == "bert-large") return bert("large", in);
  if (name == "gpt2-small") return gpt2("small", in);
  if (name == "gpt2_large") return gpt2("large", in);
  if (name == "gpt3_xl") return gpt3("xl", in);
  if (name == "gpt3_27") return gpt3("2.7b", in);
  if (name == "opt_13") return opt("1.3b", in);
  if (name == "gpt3_67") return gpt3("6.7b", in);
  if (name == "gpt3_13b") return gpt3("13b", in);
  if (name == "gpt3_175b") return gpt3("175b", in);
  if (name == "gpt3_5b") return gpt3("5b", in);
  if (name == "gpt3_20b") return gpt3("20b", in);
  if (const auto shape = detail::llm_shape(name)) {
    DecoderShape s = *shape;
    s.seq_len = in;
    return llama_decoder(s, std::string(name));
  }
  if (name == "neumf") return neumf();
  return gpt2("medium", in);
}

}  // namespace fleetwatt::models
