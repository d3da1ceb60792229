// How long one tensor-core GEMM takes (16-bit, TF32 or FP8 path), fitted on measured kernels of five GPUs:
//   t = F / (eta_max(gpu, precision) x peak(gpu, precision)) x (1 + d_half / d) + t0,   d = min(M, N, K)
// with F = 2 b M N K FLOPs: the large-GEMM rate eta_max x peak, reached at half by a GEMM whose smallest
// dimension is d_half (eta(d) = eta_max d / (d + d_half)), plus a fixed time per kernel t0. d_half and t0
// are shared by every GPU (the shape and the latency carry over between GPUs, the large-GEMM efficiency does
// not); eta_max is fitted per GPU. Data: vidur's FP16 projection GEMMs of Llama-sized layers on A40, A100
// and H100 (../shared/data/vidur-mlsys24/compute), XLA's BF16 GEMM table of H100, B200 and MI300X
// (../shared/data/openxla-matmul-perf) and the best measured matmul rate per accelerator (MAMF,
// ../shared/data/ml-engineering-mamf), which anchors eta_max on GPUs without kernels of their own. The fixed
// t0 is what the NeuSight FP32 curves (models/gemm_efficiency.hpp) lack: without it a latency-bound small
// GEMM can only be fitted by pushing eta_max above 1. FP32 keeps those curves. The built-in fit is
// models/data/tensor_gemm.toml (compiled in; tools/scripts/fit-tensor-gemm.sh regenerates it).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/gpu_hardware.hpp"
#include "fleetwatt/workloads/job_spec.hpp"

namespace fleetwatt::models {

/// One measured GEMM kernel of a tensor-core path.
struct TensorGemmSample {
  core::SourceLocation where;  ///< file and line of the row or entry
  std::string gpu;             ///< preset id
  std::string source;          ///< "vidur" or "openxla": each has its own fixed time per kernel
  workloads::Precision precision = workloads::Precision::bf16;
  double batch = 1, m = 0, n = 0, k = 0;
  double flops = 0;       ///< 2 batch M N K
  double seconds = 0;     ///< measured time of the kernel
  double peak_flops = 0;  ///< the GPU's matmul peak of the precision (roofline.hpp, matmul_peak_flops)

  /// The smallest of M, N and K.
  [[nodiscard]] double min_dim() const noexcept;
  /// Achieved fraction of the peak.
  [[nodiscard]] double efficiency() const noexcept;
};

/// One row of the MAMF table: the best matmul rate measured on an accelerator in one precision.
struct MamfFigure {
  std::string gpu;  ///< preset id
  workloads::Precision precision = workloads::Precision::bf16;
  double flops = 0;         ///< the MAMF, FLOP/s
  double peak_flops = 0;    ///< the table's "Theory" figure, FLOP/s
  std::string accelerator;  ///< the table's name for it, as printed
};

/// vidur's per-layer operator times (`dir` = vidur-mlsys24/compute, laid out <gpu>/<org>/<model>/mlp.csv):
/// the four GEMMs of every row (attn_pre_proj, attn_post_proj, mlp_up_proj, mlp_down_proj) at their median
/// time, FP16. M is the row's token count; N and K come from the model's shape and the tensor-parallel degree
/// (vidur/profiling/mlp/mlp_impl.py: column-parallel layers split N, row-parallel ones K). GPU folders a40,
/// a100 and h100 are the presets a40, a100-sxm-80gb and h100-sxm; other folders are skipped. Throws
/// core::ConfigError (file:line, column) for a row whose shape or time does not parse.
[[nodiscard]] std::vector<TensorGemmSample> read_vidur_gemms(const std::filesystem::path& dir);

/// XLA's default GEMM performance table (matmul_interpolator_data.h): every shape's FLOP/s per data type,
/// seconds = FLOPs / FLOP/s. Devices sm_90, sm_100_B200 and gfx942 are h100-sxm, b200 and mi300x (others,
/// such as gfx950 = MI355X, have no preset and are skipped); data types bf16 x bf16 -> bf16 (BF16), e4m3 x
/// e4m3 -> bf16 (FP8) and, on NVIDIA, f32 x f32 -> f32 (TF32 tensor cores); the others are skipped. Throws
/// core::ConfigError (file:line, field) for an entry that does not parse.
[[nodiscard]] std::vector<TensorGemmSample> read_openxla_gemms(const std::filesystem::path& file);

/// The "Maximum Achievable Matmul FLOPS comparison table" of ml-engineering's accelerator chapter
/// (compute_accelerator_README.md): its BF16 and FP8 sub-tables, for the accelerators with a preset (A100 SXM
/// and PCIe for both memory sizes, H100, H200, B200, GB200, MI300X). Rows without a MAMF figure are skipped.
/// Throws core::ConfigError (file:line, column) for a row whose figures do not parse or a missing table.
[[nodiscard]] std::vector<MamfFigure> read_mamf(const std::filesystem::path& file);

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
                                                          workloads::Precision precision);

/// Seconds of one GEMM (batch x M x N x K) by the model above, peak = matmul_peak_flops(gpu, precision)
/// (models/roofline.hpp), t0 = fit.t0_s. Throws std::invalid_argument for FP32.
[[nodiscard]] double tensor_gemm_seconds(const TensorGemmFit& fit, const GpuHardware& gpu,
                                         workloads::Precision precision, double m, double n, double k,
                                         double batch = 1.0);

/// The fit on the 16-bit samples (FP16 and BF16; the FP8 and TF32 ones are not fitted: the H100's FP8 rows
/// of the XLA table exceed the FP8 peak). Unique shapes per GPU and source (median time of repeats), each
/// (GPU, source) group of total weight 1. For each d_half of a log grid (1/40 decade, 10 to 10^4 elements)
/// the relative-error loss sum w (t_pred / t - 1)^2 is linear in 1 / eta_max per GPU and t0 per source:
/// solved by its weighted normal equations; the d_half of least loss is kept. Deterministic. Then mamf_ratio,
/// fp8_ratio and the leave-one-GPU-out errors.
[[nodiscard]] TensorGemmFit fit_tensor_gemm(const std::vector<TensorGemmSample>& samples,
                                            const std::vector<MamfFigure>& mamf);

/// The built-in fit (models/data/tensor_gemm.toml).
[[nodiscard]] const TensorGemmFit& default_tensor_gemm();
/// Parses a fit file; throws core::ConfigError naming file, line and key.
[[nodiscard]] TensorGemmFit parse_tensor_gemm(std::string_view toml_text, const std::string& file);
/// The TOML text parse_tensor_gemm reads back (6 significant digits).
[[nodiscard]] std::string format_tensor_gemm(const TensorGemmFit& fit);

}  // namespace fleetwatt::models
