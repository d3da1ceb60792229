// Hardware-efficiency power law (Zoubeirou a Mayaki & Charpenay, "Modeling Energy Consumption in Deep
// Learning Architectures Using Power Laws", ECAI 2025). An operation of c FLOPs that takes t seconds on a GPU
// of peak v_max runs at efficiency eta = (c / t) / v_max; the law eta(c) = eta_max (1 - exp(-k c^alpha))
// says small operations cannot fill the GPU. Durations follow as t(c) = c / (v_max eta(c)), and energy as a
// linear regression on the durations of the operation types. Units of the paper's fitted tables (it does not
// state them; see docs/predictors.md): c in GFLOP (1e9 FLOP, FLOP = 2 x MAC), eta_max in percent, durations
// in ms.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::models {

/// The unit of c in the paper's fitted parameters: GFLOP.
inline constexpr double kPowerLawFlopUnit = 1e9;

/// eta(c) = eta_max (1 - exp(-k c^alpha)), c in kPowerLawFlopUnit, eta_max in percent.
struct PowerLaw {
  double eta_max_percent = 0.0;
  double k = 0.0;
  double alpha = 0.0;

  /// Efficiency as a fraction of v_max (0..1) of an operation of `flops` FLOPs.
  [[nodiscard]] double efficiency(double flops) const noexcept;
  /// Seconds an operation of `flops` FLOPs takes on a GPU of peak `vmax_flops` FLOP/s.
  [[nodiscard]] double duration_s(double flops, double vmax_flops) const noexcept;
};

/// Operation types of the paper's decompositions.
enum class OpKind {
  projection,     ///< Q, K, V projections (dense d x d GEMMs)
  score,          ///< attention scores Q K^T
  scale,          ///< division of the scores by sqrt(d_k) (elementwise)
  softmax,        ///< softmax over the scores (elementwise)
  transpose,      ///< K^T (elementwise copy)
  mul,            ///< attention output A V
  output,         ///< output projection
  feed_forward,   ///< the two MLP GEMMs
  gates,          ///< recurrent gates E = h W_hh^T + x_t W_ih^T
  activations,    ///< recurrent gate activations (elementwise)
  cell_update,    ///< LSTM cell state update (elementwise)
  hidden_update,  ///< hidden state update (elementwise)
};
/// Lower-case name ("projection", "score", ...).
[[nodiscard]] std::string_view op_kind_name(OpKind kind) noexcept;

/// One operation of a forward pass over a batch, with its FLOP count (elementwise operations count one
/// generalised FLOP per element) and how many times it runs per forward pass (layers x time steps).
struct Operation {
  std::string name;
  OpKind kind;
  double flops = 0.0;
  double repeats = 1.0;
};

/// Operations of one forward pass of a batch through a Transformer stack (per layer, repeated `layers`
/// times).
[[nodiscard]] std::vector<Operation> transformer_operations(const TransformerShape& shape,
                                                            std::uint32_t batch);
/// Operations of one forward pass of a batch through a stacked LSTM/GRU (per step, repeated layers x
/// seq_len).
[[nodiscard]] std::vector<Operation> recurrent_operations(const RecurrentShape& shape, std::uint32_t batch);

/// Fitted laws per operation type for one GPU, from the paper.
struct PowerLawPreset {
  std::string id;
  std::string gpu;  ///< GPU preset id the laws were fitted on
  std::string description;
  std::map<OpKind, PowerLaw> laws;
};
/// The paper's fitted parameters: "a100-transformer", "rtx2080ti-transformer", "a100-lstm",
/// "worked-example" (the paper's worked example, A100).
[[nodiscard]] const std::vector<PowerLawPreset>& power_law_presets();
/// Preset by id; throws std::out_of_range listing the known ids.
[[nodiscard]] const PowerLawPreset& power_law_preset(std::string_view id);

/// Predicted seconds of one forward pass: sum over operations of repeats x t(c), each with the law of its
/// kind. Operations without a law use `fallback` (the projection law when absent from the preset).
[[nodiscard]] double forward_duration_s(const std::vector<Operation>& ops, const PowerLawPreset& preset,
                                        double vmax_flops);

/// Durations summed per operation kind (seconds).
[[nodiscard]] std::map<OpKind, double> durations_by_kind(const std::vector<Operation>& ops,
                                                         const PowerLawPreset& preset, double vmax_flops);

/// The paper's Transformer energy coefficients on the A100 (energy in J, durations in ms):
/// e = 23.8962 + 0.1089 t_projection + 0.4743 t_score - 0.1029 t_mul.
[[nodiscard]] double paper_transformer_energy_J(double projection_ms, double score_ms,
                                                double mul_ms) noexcept;

}  // namespace fleetwatt::models
