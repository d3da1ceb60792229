// How long one tensor-core GEMM takes (16-bit, TF32 or FP8 path), fitted on measured kernels of five GPUs:
//   t = F / (eta_max(gpu, precision) x peak(gpu, precision)) x (1 + d_half / d) + t0,   d = min(M, N, K)
// with F = 2 b M N K FLOPs: the large-GEMM rate eta_max x peak, reached at half by a GEMM whose smallest
// dimension is d_half (eta(d) = eta_max d / (d + d_half)), plus a fixed time per kernel t0. d_half and t0
// are shared by every GPU (the shape and the latency carry over between GPUs, the large-GEMM efficiency does
// not); eta_max is fitted per GPU. Data: vidur's FP16 projection GEMMs of Llama-sized layers on A40, A100
// and H100 (../shared/data/vidur-mlsys24/compute), XLA's BF16 GEMM table of H100, B200 and MI300X
// (../shared/data/openxla-matmul-perf) and the best measured matmul rate per accelerator (MAMF,
// ../shared/data/ml-engineering-mamf), which anchors eta_max on GPUs without kernels of their own. The fixed
// t0 is what the NeuSight FP32 curves (models/fit/gemm_efficiency.hpp) lack: without it a latency-bound small
// GEMM can only be fitted by pushing eta_max above 1. FP32 keeps those curves. The built-in fit is
// models/data/tensor_gemm.toml (compiled in; tools/scripts/fit-tensor-gemm.sh regenerates it; how it is
// fitted: models/fit/tensor_gemm_fit.hpp).
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

/// The fitted constants.
struct TensorGemmFit {
  double d_half = 147.0;  ///< elements: the smallest dimension at which a GEMM reaches half of eta_max
  /// Fixed time per kernel, s: the vidur source's, the sum of CUDA kernel times of real model layers (what a
  /// simulated step adds up per GEMM); openxla's timing carries a harness floor of its own.
  double t0_s = 6e-6;
  std::map<std::string, double> t0_by_source;  ///< per data source ("vidur", "openxla"), s
  std::map<std::string, double> eta_max;       ///< fitted per GPU preset (16-bit path)
  std::map<std::string, double> mamf_bf16;     ///< per GPU preset: MAMF BF16 / the preset's BF16 peak
  std::map<std::string, double> mamf_fp8;      ///< per GPU preset: MAMF FP8 / the preset's FP8 peak
  /// Median over the GPUs with both of fitted eta_max / (MAMF BF16 / peak): what the fitted kernels reach of
  /// the best rate measured on the same GPU.
  double mamf_ratio = 0.95;
  /// Median over the GPUs with both of (MAMF FP8 / FP8 peak) / (MAMF BF16 / BF16 peak).
  double fp8_ratio = 0.95;
  /// The rule that gave each left-out GPU its eta_max in the leave-one-GPU-out check (tensor_gemm_efficiency
  /// on the fit without it); written to the file as comments, not read back.
  std::map<std::string, std::string> rule;
  /// Leave-one-GPU-out: per GPU, the median |ln(predicted / measured time)| of its kernels, predicted by the
  /// fit without it, its eta_max from the rule and t0 of its source.
  std::map<std::string, double> loo_error;
  std::map<std::string, double> loo_error_mean;  ///< the same, mean
  std::string provenance;
};

/// A large-GEMM efficiency and the rule it came from.
struct TensorGemmEfficiency {
  double eta_max = 0;
  std::string rule;  ///< "fitted", "MAMF", "family <arch>" or "pooled" (FP8: see tensor_gemm_efficiency)
};

/// The large-GEMM efficiency of `gpu` in `precision` and where it comes from. 16-bit and TF32: the GPU's
/// fitted eta_max ("fitted"); else mamf_ratio x its MAMF BF16 / peak ("MAMF"); else the median fitted value
/// of the GPUs of its architecture family (GpuHardware::arch: "family hopper"); else the median of all
/// fitted values ("pooled"). FP8: mamf_ratio x its MAMF FP8 / FP8 peak ("MAMF"); else its 16-bit value x
/// fp8_ratio ("<16-bit rule> x fp8_ratio"); a GPU without an FP8 path runs FP8 at its 16-bit rate and gets
/// the 16-bit value. FP32 throws std::invalid_argument (FP32 keeps the NeuSight curves).
[[nodiscard]] TensorGemmEfficiency tensor_gemm_efficiency(const TensorGemmFit& fit, const GpuHardware& gpu,
                                                          jobs::Precision precision);

/// Seconds of one GEMM (batch x M x N x K) by the model above, peak = matmul_peak_flops(gpu, precision)
/// (models/hardware/roofline.hpp), t0 = fit.t0_s. Throws std::invalid_argument for FP32.
[[nodiscard]] double tensor_gemm_seconds(const TensorGemmFit& fit, const GpuHardware& gpu,
                                         jobs::Precision precision, double m, double n, double k,
                                         double batch = 1.0);

/// The built-in fit (models/data/tensor_gemm.toml).
[[nodiscard]] const TensorGemmFit& default_tensor_gemm();
/// Parses a fit file; throws core::ConfigError naming file, line and key.
[[nodiscard]] TensorGemmFit parse_tensor_gemm(std::string_view toml_text, const std::string& file);
/// The TOML text parse_tensor_gemm reads back (6 significant digits).
[[nodiscard]] std::string format_tensor_gemm(const TensorGemmFit& fit);

}  // namespace fleetwatt::models
