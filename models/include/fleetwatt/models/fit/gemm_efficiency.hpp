// How much of its matmul peak one GEMM kernel reaches as a function of its size, fitted on NeuSight's traced
// per-operator latencies (../shared/data/neusight-asplos25/label/<GPU>/*.csv, FP32 with TF32 off):
//   eta(d) = eta_max x d / (d + d_half),   d = the smallest of the GEMM's M, N and K
// per architecture family, with a pooled curve for families without measurements. The smallest dimension was
// chosen over the FLOPs per kernel (eta_max F / (F + F_half), the same curve as a fixed time per kernel) by
// the leave-one-GPU-out error (docs/predictors.md, "FP32 GEMM efficiency by size"). The roofline uses it for
// the matmul classes of callers that know their GEMMs' shapes (the 3D-parallel step model); others keep the
// fitted per-class constants, times each family's eta_max over the pooled one
// (RooflineConstants::family_gemm). The data are FP32 kernels; 16-bit and TF32 GEMMs take the curve moved
// with their path's ridge point (precision_curve). The built-in curves are models/data/gemm_efficiency.toml
// (compiled in).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"

namespace fleetwatt::models {

/// One traced GEMM kernel (one pass of one operator) with its measured time.
struct GemmSample {
  core::SourceLocation where;  ///< file and line of the operator's row
  std::string gpu;             ///< preset id
  std::string arch;            ///< the preset's architecture family
  double batch = 1.0, m = 0.0, n = 0.0, k = 0.0;
  double flops = 0.0;     ///< 2 batch M N K forward; twice that for the backward (two GEMMs of that size)
  double seconds = 0.0;   ///< measured latency of the pass
  bool backward = false;  ///< the operator's backward pass (input and weight gradients)
  double peak_flops =
      0.0;  ///< the GPU's FP32 matmul peak the roofline uses (roofline.hpp, matmul_peak_flops)

  [[nodiscard]] double min_dim() const noexcept;
  /// Achieved fraction of the matmul peak.
  [[nodiscard]] double efficiency() const noexcept { return flops / (seconds * peak_flops); }
};

/// GEMM rows of NeuSight's per-operator label CSVs under `path` (a folder, read recursively, or one CSV):
/// addmm, matmul / bmm and the linear modules (query, dense, fc1, lm_head, ...), with M, N, K from their
/// input and output shapes; operators of GPUs without a preset and rows with no measured time are skipped.
/// Throws core::ConfigError (file:line, column) for a row whose shapes or latencies do not parse.
[[nodiscard]] std::vector<GemmSample> read_neusight_gemms(const std::filesystem::path& path);

/// One saturating curve.
struct GemmCurve {
  double eta_max = 0.8;  ///< efficiency of a large GEMM
  double d_half = 50.0;  ///< smallest dimension at which half of eta_max is reached
  std::size_t samples = 0;
  [[nodiscard]] double eta(double min_dim) const noexcept;
};

struct GemmEfficiencyFit {
  std::map<std::string, GemmCurve> family;  ///< per architecture family with measurements
  GemmCurve pooled;                         ///< every measurement: families without their own curve
  std::string provenance;
  /// Leave-one-GPU-out: median |ln(predicted / measured time)| of each left-out GPU's kernels, its curve
  /// fitted without it (its family's other GPUs where there are, else the pooled curve of the others).
  std::map<std::string, double> loo_error;
  std::map<std::string, double> loo_error_flops_form;  ///< the same for eta_max F / (F + F_half)
  /// The curve for an architecture family (the pooled one where the family has none).
  [[nodiscard]] const GemmCurve& curve(const std::string& arch) const;
};

/// Least-squares fit of one curve on relative time errors (eta_max in closed form for each d_half of a grid
/// of 1/40 decade from 1 to 10^4 elements; deterministic).
[[nodiscard]] GemmCurve fit_gemm_curve(const std::vector<const GemmSample*>& samples);
/// Per family (families with at least `min_family_samples` kernels) and pooled, with the leave-one-GPU-out
/// errors of both forms.
[[nodiscard]] GemmEfficiencyFit fit_gemm_efficiency(const std::vector<GemmSample>& samples,
                                                    std::size_t min_family_samples = 30);

/// The built-in curves (models/data/gemm_efficiency.toml).
[[nodiscard]] const GemmEfficiencyFit& default_gemm_efficiency();
/// Parses a curves file; throws core::ConfigError naming file, line and key.
[[nodiscard]] GemmEfficiencyFit parse_gemm_efficiency(std::string_view toml_text, const std::string& file);
/// The TOML text parse_gemm_efficiency reads back (6 significant digits).
[[nodiscard]] std::string format_gemm_efficiency(const GemmEfficiencyFit& fit);

/// The curve of `fp32` (fitted on FP32 kernels) for GEMMs of `precision` on `gpu`: the same large-GEMM
/// fraction of that path's peak, and d_half moved with the path's ridge point counted in elements. A GEMM of
/// smallest dimension d does about d FLOPs per element it moves, so it leaves the bandwidth bound at a d in
/// proportion to peak x bytes per element / bandwidth: d_half x (peak of the path / FP32 matmul peak) x
/// (bytes per element / 4). On the A100 in BF16: x 16 x 1/2 = x 8. FP32 returns the curve unchanged.
[[nodiscard]] GemmCurve precision_curve(const GemmCurve& fp32, const GpuHardware& gpu,
                                        jobs::Precision precision);

/// One GEMM of a layer: its smallest dimension and its share of the class's FLOPs (any unit).
struct GemmShare {
  double min_dim = 0.0;
  double flops = 0.0;
};
/// The efficiency of a class made of these GEMMs: total FLOPs over the sum of each GEMM's FLOPs / eta, i.e.
/// the one efficiency that gives the class the time of its GEMMs run one after the other.
[[nodiscard]] double class_gemm_efficiency(const GemmCurve& curve, const std::vector<GemmShare>& gemms);

}  // namespace fleetwatt::models
