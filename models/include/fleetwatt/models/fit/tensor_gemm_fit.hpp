// How the tensor-core GEMM constants (models/hardware/tensor_gemm.hpp) are fitted: the measured kernels of
// vidur and XLA and the MAMF table read from ../shared/data, and the fit on them with its leave-one-GPU-out
// check.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/hardware/tensor_gemm.hpp"

namespace fleetwatt::models {

/// One measured GEMM kernel of a tensor-core path.
struct TensorGemmSample {
  core::SourceLocation where;  ///< file and line of the row or entry
  std::string gpu;             ///< preset id
  std::string source;          ///< "vidur" or "openxla": each has its own fixed time per kernel
  jobs::Precision precision = jobs::Precision::bf16;
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
  jobs::Precision precision = jobs::Precision::bf16;
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
/// The GPU preset of one of vidur's GPU folders (a40, a100, h100), "" for another.
[[nodiscard]] std::string vidur_preset(const std::string& folder);

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

/// The fit on the 16-bit samples (FP16 and BF16; the FP8 and TF32 ones are not fitted: the H100's FP8 rows
/// of the XLA table exceed the FP8 peak). Unique shapes per GPU and source (median time of repeats), each
/// (GPU, source) group of total weight 1. For each d_half of a log grid (1/40 decade, 10 to 10^4 elements)
/// the relative-error loss sum w (t_pred / t - 1)^2 is linear in 1 / eta_max per GPU and t0 per source:
/// solved by its weighted normal equations; the d_half of least loss is kept. Deterministic. Then mamf_ratio,
/// fp8_ratio and the leave-one-GPU-out errors.
[[nodiscard]] TensorGemmFit fit_tensor_gemm(const std::vector<TensorGemmSample>& samples,
                                            const std::vector<MamfFigure>& mamf);

}  // namespace fleetwatt::models
