// Model zoo: analytic parameter and FLOP counts of common architectures at any input size the architecture
// allows, so a job can name "resnet50" instead of giving its FLOPs. Convention, used everywhere in fleetwatt:
// one multiply-accumulate (MAC) is 2 FLOPs; `forward_flops` = 2 x MACs of one sample's forward pass
// (convolutions, linear layers and attention matmuls; normalisation, activation and pooling are not counted,
// as in the published reference counts); one training step costs about 3 x forward (backward = 2 x forward).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::models {

/// What kind of network a count describes (predictors use it for per-step overheads and power factors).
enum class ModelFamily { cnn, transformer, recurrent, mlp, other };

/// Operator classes of the roofline step-time model (models/hardware/roofline.hpp): each runs at its own
/// efficiency of the GPU's peak for the job's precision path and of its memory bandwidth.
///  - tensor: dense convolutions and linear layers (GEMMs the tensor cores or FP32 matrix units can run);
///  - vector: depthwise/grouped convolutions and other GEMM-like work that does not reach the GEMM peak;
///  - memory: element-wise and normalisation kernels, pooling, embedding lookups (bandwidth-bound);
///  - attention: the score and value matmuls with their softmax (sequence-squared work).
/// The optimiser is not a zoo figure: the roofline takes it from the parameter and tensor counts.
enum class OpClass : std::uint8_t { tensor, vector, memory, attention };
inline constexpr std::size_t kOpClasses = 4;
/// "tensor", "vector", "memory", "attention".
[[nodiscard]] const char* to_string(OpClass c) noexcept;

/// The forward pass's work in one operator class. The backward pass is taken as twice the forward in every
/// field (gradients with respect to inputs and to weights each redo the forward's products and re-read its
/// operands); a frozen layer has no backward.
struct OpWork {
  double flops = 0.0;         ///< per sample: 2 x MACs (element-wise work: about one FLOP per element)
  double bytes = 0.0;         ///< per sample: activations read and written, FP32 (4 bytes per element)
  double weight_bytes = 0.0;  ///< per step (independent of the batch): weights read, FP32
  double kernels = 0.0;       ///< per step: kernel launches
};

/// Counts of one architecture at one input size.
struct ModelCount {
  std::string name;  ///< zoo name ("resnet50") or a description of the generic shape
  ModelFamily family = ModelFamily::other;
  double params = 0.0;               ///< trainable parameters
  double forward_macs = 0.0;         ///< multiply-accumulates of one sample's forward pass
  double forward_flops = 0.0;        ///< 2 x forward_macs
  std::uint32_t input_size = 0;      ///< image side (pixels) or sequence length (tokens) the counts are for
  std::uint32_t weight_layers = 0;   ///< convolution / linear / recurrent layers (one kernel each per pass)
  std::uint32_t param_tensors = 0;   ///< parameter tensors (an unfused optimiser launches kernels per tensor)
  double activation_elements = 0.0;  ///< elements of every layer output of one sample's forward pass
  /// The forward pass by operator class (indexed by OpClass). The tensor, vector and attention FLOPs sum to
  /// forward_flops; element-wise FLOPs are counted in `memory` only.
  std::array<OpWork, kOpClasses> ops{};
  /// The output head's part of `ops` (a decoder's final norm and vocabulary projection): the work a
  /// pipeline's last stage runs on top of its share of the layers (models/training/llm_step_time.hpp).
  std::array<OpWork, kOpClasses> head_ops{};

  /// Transformer shape (0 for other families): blocks, model width and the attention width (heads x d_head,
  /// which GPT-3 13B sets below d_model), used by the LLM memory and FLOP accounting
  /// (models/training/llm_memory.hpp).
  std::uint32_t blocks = 0;
  std::uint32_t d_model = 0;
  std::uint32_t heads = 0;
  std::uint32_t d_attention = 0;
  /// Mixture of experts: parameters in the experts (sharded over `ep`) and those one token passes through
  /// (the shared ones plus the active experts'); dense models leave expert_params 0 and active_params =
  /// params.
  double expert_params = 0.0;
  double active_params = 0.0;
  /// The rest of a transformer layer's shape, for the 3D-parallel step model's GEMMs (models/llm_step_time):
  /// key/value heads (grouped-query attention; = heads otherwise), the feed-forward width and the matrices
  /// that read the layer's input (2 for a gated feed-forward, 1 otherwise), experts per layer and per token,
  /// and the vocabulary of the output projection (0: none).
  std::uint32_t kv_heads = 0;
  std::uint32_t d_ff = 0;
  std::uint32_t ffn_in_matrices = 1;
  std::uint32_t experts = 1;
  std::uint32_t top_k = 1;
  std::uint32_t vocab = 0;

  /// FLOPs of one training step per sample: forward + backward (2 x forward).
  [[nodiscard]] double training_flops() const noexcept { return 3.0 * forward_flops; }
  /// Training FLOPs per token at sequence length `seq` (Hoffmann et al. 2022, appendix F; Narayanan et al.
  /// 2021): 6 N (forward 2 N, backward 4 N over the N parameters a token passes through, embeddings included)
  /// plus the attention scores and values, 2 x 2 x blocks x seq x d_attention forward, x 3 for training.
  [[nodiscard]] double training_flops_per_token(std::uint32_t seq) const noexcept {
    const double n = active_params > 0.0 ? active_params : params;
    return 6.0 * n + 12.0 * blocks * static_cast<double>(seq) * d_attention;
  }
};

/// Shape of a generic Transformer (decoder-style when `causal`, else encoder-style; counts are the same).
struct TransformerShape {
  std::uint32_t layers = 12;
  std::uint32_t d_model = 768;
  std::uint32_t heads = 12;
  std::uint32_t d_ff = 0;  ///< feed-forward width; 0 means 4 x d_model
  std::uint32_t seq_len = 512;
  std::uint32_t vocab = 30522;      ///< 0: no token embedding / output projection
  std::uint32_t max_positions = 0;  ///< learned position embeddings; 0 means seq_len
  bool lm_head = true;              ///< count the (weight-tied) vocabulary projection's MACs
  std::uint32_t d_head = 0;         ///< per-head width; 0 means d_model / heads (GPT-3 13B: 128 x 40 < 5140)
};

/// Shape of a stacked LSTM or GRU.
struct RecurrentShape {
  bool gru = false;  ///< GRU (3 gates) instead of LSTM (4 gates)
  std::uint32_t layers = 1;
  std::uint32_t input_size = 128;
  std::uint32_t hidden_size = 256;
  std::uint32_t seq_len = 100;
  bool bidirectional = false;
};

/// ResNet-18/34/50/101/152 (torchvision v1.5 layout) at `image` x `image`, `classes` outputs.
[[nodiscard]] ModelCount resnet(int depth, std::uint32_t image = 224, std::uint32_t classes = 1000);
/// VGG16 (torchvision, 7x7 adaptive pool before the classifier).
[[nodiscard]] ModelCount vgg16(std::uint32_t image = 224, std::uint32_t classes = 1000);
/// ShuffleNetV2 x1.0. At images below 64 pixels it uses the CIFAR stem (3x3 stride-1 convolution, no max
/// pool), as the CIFAR-100 implementations do; otherwise torchvision's.
[[nodiscard]] ModelCount shufflenet_v2(std::uint32_t image = 224, std::uint32_t classes = 1000);
/// MobileNetV2 (width 1.0).
[[nodiscard]] ModelCount mobilenet_v2(std::uint32_t image = 224, std::uint32_t classes = 1000);
/// Vision Transformer; `variant` is "s", "b" or "l"; image must be a multiple of `patch`.
[[nodiscard]] ModelCount vit(std::string_view variant, std::uint32_t image = 224, std::uint32_t patch = 16,
                             std::uint32_t classes = 1000);
/// BERT encoder with pooler (HuggingFace layout); `variant` is "base" or "large"; seq_len <= 512.
[[nodiscard]] ModelCount bert(std::string_view variant, std::uint32_t seq_len = 512);
/// GPT-2 with tied output embedding; `variant` is "small" or "medium"; seq_len <= 1024.
[[nodiscard]] ModelCount gpt2(std::string_view variant, std::uint32_t seq_len = 1024);
// (gpt2 also takes "large": 36 layers, d_model 1280, 20 heads; its zoo name is "gpt2_large".)
/// GPT-3 in GPT-2's layout with dense attention and a tied output embedding (Brown et al. 2020 table 2.1);
/// `variant` is "xl" (24 layers, d_model 2048, 16 heads; zoo "gpt3_xl") or "2.7b" (32 layers, d_model 2560,
/// 32 heads; zoo "gpt3_27"); d_ff 4 x d_model, vocabulary 50257, 2048 positions; seq_len <= 2048.
[[nodiscard]] ModelCount gpt3(std::string_view variant, std::uint32_t seq_len = 2048);
/// OPT (HuggingFace layout, tied lm_head, final LayerNorm, position table of 2048 + 2 rows); `variant` is
/// "1.3b" (zoo "opt_13": 24 layers, d_model 2048, 32 heads, d_ff 8192, vocabulary 50272); seq_len <= 2048.
[[nodiscard]] ModelCount opt(std::string_view variant, std::uint32_t seq_len = 2048);
/// Decoder-only LLM in the Llama layout (Touvron et al. 2023; Jiang et al. 2024 for the experts): RMSNorm
/// before attention and FFN and at the end, no biases, rotary positions (no table), grouped-query attention
/// (`kv_heads` key/value heads), a SwiGLU FFN (three d_model x d_ff matrices), untied input and output
/// embeddings. `experts` > 1 makes every FFN a mixture of experts with a linear router, `active_experts` of
/// which each token runs.
struct DecoderShape {
  std::uint32_t layers = 32;
  std::uint32_t d_model = 4096;
  std::uint32_t heads = 32;
  std::uint32_t kv_heads = 32;
  std::uint32_t d_ff = 11008;
  std::uint32_t vocab = 32000;
  std::uint32_t max_seq = 4096;  ///< context length the model was trained for (longer inputs are refused)
  std::uint32_t experts = 1;
  std::uint32_t active_experts = 1;
  std::uint32_t seq_len = 4096;
  /// Variants of the layout: a gated feed-forward (SwiGLU, GeGLU: gate, up and down matrices) or a plain
  /// one (up and down: Nemotron's squared ReLU); untied or tied input and output embeddings (Grok-1); the
  /// norms per layer (Grok-1 normalises before and after attention and the experts: 4) and whether they
  /// carry a bias (Nemotron's LayerNorm) besides their scale.
  bool gated = true;
  bool tied = false;
  std::uint32_t norms_per_layer = 2;
  bool norm_bias = false;
};
/// Counts of a Llama-layout decoder (see DecoderShape); `name` is the zoo name it reports.
[[nodiscard]] ModelCount llama_decoder(const DecoderShape& shape, std::string name);
/// Counts of a decoder given by its shape (a scenario's model keys, `predict --model-shape`) at `seq` tokens:
/// Llama's layout with the shape's widths, heads, experts and feed-forward kind; no context limit (the
/// shape states none). Throws std::invalid_argument for a shape that cannot be (ModelShape::problem).
[[nodiscard]] ModelCount decoder_from_shape(const jobs::ModelShape& shape, std::uint32_t seq,
                                            std::string name);
/// The shape of a Llama- or Nemotron-layout zoo decoder ("llama2_7b"), to run it beyond its trained
/// context as long-sequence training extends it; nullopt for other models. Layout details the shape does
/// not carry (norm biases, tied embeddings) are Llama's.
[[nodiscard]] std::optional<jobs::ModelShape> zoo_model_shape(std::string_view name);

/// NeuMF (neural collaborative filtering, He et al. 2017): GMF and MLP embeddings of `factors` and
/// factors x 2^(mlp_layers - 1), an MLP tower halving down to `factors`, one output. Defaults: MovieLens-1M.
[[nodiscard]] ModelCount neumf(std::uint32_t users = 6040, std::uint32_t items = 3706,
                               std::uint32_t factors = 32, std::uint32_t mlp_layers = 3);
/// Generic Transformer (see TransformerShape).
[[nodiscard]] ModelCount transformer(const TransformerShape& shape);
/// Stacked LSTM or GRU; MACs are per sequence (seq_len steps).
[[nodiscard]] ModelCount recurrent(const RecurrentShape& shape);

/// One zoo entry: name, what `input_size` means for it, its default input size.
struct ZooEntry {
  std::string name;
  std::string input_kind;  ///< "image" or "sequence"
  std::uint32_t default_input = 0;
  std::string description;
};

/// Every named zoo model, in a stable order.
[[nodiscard]] const std::vector<ZooEntry>& zoo_entries();
/// True when `name` is a zoo model.
/// (is_zoo_model and count_model also take the aliases bert_base, bert_large, gpt2_small, gpt2_medium, the
/// NeuSight data's spellings, and gpt2-large, opt-1.3b.)
[[nodiscard]] bool is_zoo_model(std::string_view name);
/// True for a job whose model fleetwatt knows only by the FLOPs it is given: neither a zoo model nor a
/// shape. Its work and its band are those of such work (the predictor's band class `other`; the fit's
/// per-workload work where its source leaves the input size unstated).
[[nodiscard]] bool known_by_flops_only(const jobs::ModelMetadata& meta);
/// Counts of a named zoo model at `input_size` (0: its default). Throws std::invalid_argument naming the
/// model and listing the known ones for an unknown name, or saying why the input size is impossible.
[[nodiscard]] ModelCount count_model(std::string_view name, std::uint32_t input_size = 0);
/// How a job names a Keras application it gives by its FLOPs: "keras-<architecture>".
inline constexpr std::string_view kKerasPrefix = "keras-";
/// The family of a model a job names but gives by its FLOPs (not a zoo model): convolutional for a Keras
/// application (kKerasPrefix, as GAISSA's runs and their calibrated records name them: every
/// model in keras.applications is a convolutional image network), other for any other name.
[[nodiscard]] ModelFamily named_model_family(std::string_view name) noexcept;
/// Comma-separated zoo names, for messages.
[[nodiscard]] std::string zoo_names();

}  // namespace fleetwatt::models
