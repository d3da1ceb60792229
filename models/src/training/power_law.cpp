// Hardware-efficiency power law: the law itself, the paper's operation decompositions (Transformer, LSTM/GRU)
// and its fitted parameter tables.
#include "fleetwatt/models/training/power_law.hpp"

#include <fmt/format.h>

#include <cmath>

namespace fleetwatt::models {

double PowerLaw::efficiency(double flops) const noexcept {
  if (flops <= 0.0) return 0.0;
  const double c = flops / kPowerLawFlopUnit;
  return eta_max_percent / 100.0 * -std::expm1(-k * std::pow(c, alpha));
}

double PowerLaw::duration_s(double flops, double vmax_flops) const noexcept {
  if (flops <= 0.0) return 0.0;
  return flops / (vmax_flops * efficiency(flops));
}

std::string_view op_kind_name(OpKind kind) noexcept {
  switch (kind) {
    case OpKind::projection:
      return "projection";
    case OpKind::score:
      return "score";
    case OpKind::scale:
      return "scale";
    case OpKind::softmax:
      return "softmax";
    case OpKind::transpose:
      return "transpose";
    case OpKind::mul:
      return "mul";
    case OpKind::output:
      return "output";
    case OpKind::feed_forward:
      return "feed_forward";
    case OpKind::gates:
      return "gates";
    case OpKind::activations:
      return "activations";
    case OpKind::cell_update:
      return "cell_update";
    case OpKind::hidden_update:
      return "hidden_update";
  }
  return "unknown";
}

std::vector<Operation> transformer_operations(const TransformerShape& s, std::uint32_t batch) {
  if (s.d_model == 0 || s.heads == 0 || s.seq_len == 0 || s.layers == 0 || batch == 0)
    throw std::invalid_argument("transformer_operations: shape and batch must be positive");
  const double B = batch, L = s.seq_len, d = s.d_model, h = s.heads;
  const double ff = s.d_ff ? s.d_ff : 4.0 * s.d_model;
  const double n = s.layers;
  // Matrix products cost 2 FLOPs per multiply-accumulate; elementwise operations one generalised FLOP per
  // element they touch.
  return {
      {"q_projection", OpKind::projection, 2 * B * L * d * d, n},
      {"k_projection", OpKind::projection, 2 * B * L * d * d, n},
      {"v_projection", OpKind::projection, 2 * B * L * d * d, n},
      {"k_transpose", OpKind::transpose, B * L * d, n},
      {"scores", OpKind::score, 2 * B * L * L * d, n},  // h heads of L x d_k times d_k x L
      {"scale", OpKind::scale, B * h * L * L, n},
      {"softmax", OpKind::softmax, B * h * L * L, n},
      {"attention_mul", OpKind::mul, 2 * B * L * L * d, n},  // h heads of L x L times L x d_k
      {"output_projection", OpKind::output, 2 * B * L * d * d, n},
      {"ffn_up", OpKind::feed_forward, 2 * B * L * d * ff, n},
      {"ffn_down", OpKind::feed_forward, 2 * B * L * ff * d, n},
  };
}

std::vector<Operation> recurrent_operations(const RecurrentShape& s, std::uint32_t batch) {
  if (s.hidden_size == 0 || s.input_size == 0 || s.seq_len == 0 || s.layers == 0 || batch == 0)
    throw std::invalid_argument("recurrent_operations: shape and batch must be positive");
  const double B = batch, h = s.hidden_size, g = s.gru ? 3.0 : 4.0, dirs = s.bidirectional ? 2.0 : 1.0;
  std::vector<Operation> ops;
  for (std::uint32_t l = 0; l < s.layers; ++l) {
    const double d = l == 0 ? s.input_size : dirs * h;
    const double steps = dirs * s.seq_len;
    const std::string layer = fmt::format("layer{}_", l);
    // LSTM: E = h W_hh^T + x_t W_ih^T at 2 B (h 4h) + 2 B (d 4h) FLOPs; activations 4 B h; updates 2 B h.
    ops.push_back({layer + "gates", OpKind::gates, 2 * B * h * g * h + 2 * B * d * g * h, steps});
    ops.push_back({layer + "activations", OpKind::activations, g * B * h, steps});
    if (!s.gru) ops.push_back({layer + "cell_update", OpKind::cell_update, 2 * B * h, steps});
    ops.push_back({layer + "hidden_update", OpKind::hidden_update, 2 * B * h, steps});
  }
  return ops;
}

const std::vector<PowerLawPreset>& power_law_presets() {
  // Zoubeirou a Mayaki & Charpenay (ECAI 2025), fitted (eta_max %, k, alpha) per operation type.
  static const std::vector<PowerLawPreset> presets{
      {"a100-transformer",
       "a100-sxm-80gb",
       "Transformer operations on the A100 (paper's table)",
       {{OpKind::mul, {65.79, 9.25, 0.81}},
        {OpKind::score, {55.60, 8.24, 0.73}},
        {OpKind::projection, {68.22, 8.50, 0.70}}}},
      {"rtx2080ti-transformer",
       "rtx2080ti",
       "Transformer operations on the RTX 2080 Ti (paper's table)",
       {{OpKind::mul, {78.55, 21.83, 0.56}},
        {OpKind::score, {71.33, 14.67, 0.57}},
        {OpKind::projection, {81.35, 14.28, 0.47}}}},
      {"a100-lstm",
       "a100-sxm-80gb",
       "LSTM operations on the A100 (paper's table)",
       {{OpKind::activations, {0.10, 12164.49, 1.00}},
        {OpKind::cell_update, {0.05, 1986.55, 1.00}},
        {OpKind::hidden_update, {0.09, 1780.62, 1.00}},
        {OpKind::gates, {67.48, 8.14, 0.75}}}},
      {"worked-example",
       "a100-sxm-80gb",
       "the paper's worked example (A100)",
       {{OpKind::projection, {68.43, 8.14, 0.754}},
        {OpKind::score, {55.70, 8.43, 0.800}},
        {OpKind::output, {67.10, 8.49, 0.794}}}},
  };
  return presets;
}

const PowerLawPreset& power_law_preset(std::string_view id) {
  std::string known;
  for (const auto& p : power_law_presets()) {
    if (p.id == id) return p;
    known += (known.empty() ? "" : ", ") + p.id;
  }
  throw std::out_of_range(fmt::format("unknown power-law preset '{}'; known presets: {}", id, known));
}

namespace {

/// The law for an operation kind, falling back to the closest fitted kind: dense products to the
/// projection law, A V to the score law, elementwise operations to the activation law. Null when none fits.
const PowerLaw* law_for(OpKind kind, const PowerLawPreset& preset) {
  const auto get = [&](OpKind k) -> const PowerLaw* {
    const auto it = preset.laws.find(k);
    return it == preset.laws.end() ? nullptr : &it->second;
  };
  if (const PowerLaw* exact = get(kind)) return exact;
  switch (kind) {
    case OpKind::mul:
      if (const PowerLaw* s = get(OpKind::score)) return s;
      return get(OpKind::projection);
    case OpKind::output:
    case OpKind::feed_forward:
      if (const PowerLaw* p = get(OpKind::projection)) return p;
      return get(OpKind::gates);
    case OpKind::gates:
    case OpKind::projection:
    case OpKind::score:
      return get(OpKind::projection);
    case OpKind::scale:
    case OpKind::softmax:
    case OpKind::transpose:
    case OpKind::cell_update:
    case OpKind::hidden_update:
    case OpKind::activations:
      return get(OpKind::activations);
  }
  return nullptr;
}

}  // namespace

std::map<OpKind, double> durations_by_kind(const std::vector<Operation>& ops, const PowerLawPreset& preset,
                                           double vmax_flops) {
  std::map<OpKind, double> out;
  for (const auto& op : ops) {
    // Elementwise operations without a fitted law are left out: the paper's Transformer tables have none
    // (its energy regression uses projection, score and mul durations only).
    if (const PowerLaw* law = law_for(op.kind, preset))
      out[op.kind] += op.repeats * law->duration_s(op.flops, vmax_flops);
  }
  return out;
}

double forward_duration_s(const std::vector<Operation>& ops, const PowerLawPreset& preset,
                          double vmax_flops) {
  double total = 0.0;
  for (const auto& [kind, seconds] : durations_by_kind(ops, preset, vmax_flops)) total += seconds;
  return total;
}

double paper_transformer_energy_J(double projection_ms, double score_ms, double mul_ms) noexcept {
  return 23.8962 + 0.1089 * projection_ms + 0.4743 * score_ms - 0.1029 * mul_ms;
}

}  // namespace fleetwatt::models
