// What the 3D-parallel step model (models/training/llm_step_time.hpp) takes from published step times rather
// than from kernel measurements: three global factors, fitted on the development set of published
// pre-training runs (models/fit/published_steps.hpp: NeMo 24.07, NeMo's long-sequence table,
// Megatron-Bridge 25.09-26.08), each standing for something the isolated kernels of ../shared/data do not
// show:
//  - gemm_factor: a tensor-core GEMM inside a training step takes this many times its isolated time (the
//    vidur and MAMF kernels ran alone, at the clocks a short loop holds; in a step they share the GPU with
//    communication kernels and run at the clocks a GPU holds at its power limit);
//  - attention_factor, flash2_factor: fused attention (cuDNN's, FlashAttention-3) and FlashAttention-2 take
//    this many times a head-width GEMM of their FLOPs (their backward passes run below their forward's
//    efficiency; no attention kernel is measured in ../shared/data);
//  - tp_overlap: the share of tensor-parallel traffic Transformer Engine's userbuffer overlap hides behind
//  the
//    layer's GEMMs (a job's tp_comm_overlap, on by default with the optimized stack).
// The fit (models/step_calibration_fit.hpp) minimises the mean |ln(predicted / published)| over the rows
// fleetwatt can express; leaving each source out gives the errors docs/predictors.md reports. The built-in
// values are models/data/step_calibration.toml (compiled in; tools/scripts/fit-step-calibration.sh).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace fleetwatt::models {

struct StepCalibration {
  double gemm_factor = 1.0;
  double attention_factor = 1.0;
  double flash2_factor = 1.0;  ///< the same for FlashAttention-2 (attention = "flash2")
  double tp_overlap = 0.0;
  std::string provenance;
  std::size_t rows = 0;         ///< published steps fitted on
  double mean_abs_error = 0.0;  ///< of those rows, in-sample (|predicted / published - 1|)
  /// Per source left out ("NeMo 24.07", "NeMo long-sequence", "Megatron-Bridge H100", "Megatron-Bridge
  /// Blackwell"): the mean |error| of its rows with the factors fitted on the others.
  std::map<std::string, double> loo_error;
};

/// The built-in factors (models/data/step_calibration.toml).
[[nodiscard]] const StepCalibration& default_step_calibration();
/// Parses a calibration file; throws core::ConfigError naming file, line and key.
[[nodiscard]] StepCalibration parse_step_calibration(std::string_view toml_text, const std::string& file);
/// The TOML text parse_step_calibration reads back.
[[nodiscard]] std::string format_step_calibration(const StepCalibration& c);

}  // namespace fleetwatt::models
