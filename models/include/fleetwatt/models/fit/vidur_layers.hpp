// Vidur's measured operator times of one transformer layer (vidur-mlsys24: Agrawal et al., "Vidur: A
// Large-Scale Simulation Framework for LLM Inference", MLSys 2024; MIT) beside the serving iteration model's
// layer: its four linear GEMMs and its element-wise kernels at 1-4,096 tokens and tp 1-8, on A40, A100 and
// H100, in FP16. The profiles time kernels alone (CUDA events, no host time) and have no attention kernel,
// so the model's layer is taken without either. Each GPU is predicted with its GEMM efficiency left out of
// the tensor-core GEMM fit (the rule that GPU would get unseen: MAMF, else its family's), since that fit
// learnt from these profiles too.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::models {

/// One profiled layer: the GPU preset, the model, its shape, the tokens and tp, and the measured medians.
struct VidurLayer {
  std::string gpu, model, file;
  std::uint32_t line = 0;
  jobs::ModelShape shape;  ///< one layer, no vocabulary
  double tokens = 0.0, tp = 1.0;
  double gemm_s = 0.0;         ///< QKV, attention output, gate-and-up, down projections
  double elementwise_s = 0.0;  ///< two norms, rotary positions, the activation, two residual adds
};

/// Reads FOLDER/compute/<gpu>/<org>/<model>/mlp.csv (FOLDER the data set or its compute/ folder); a bad row
/// is a TraceFormatError naming its file, line and column.
[[nodiscard]] std::vector<VidurLayer> read_vidur_layers(const std::filesystem::path& folder);

/// One profile (an mlp.csv) from a stream: `source` names it in messages, `gpu` is its GPU preset and
/// `model` its model's name.
[[nodiscard]] std::vector<VidurLayer> read_vidur_profile(std::istream& in, const std::string& source,
                                                         const std::string& gpu, const std::string& model);

/// True when `folder` holds Vidur's profiles (a compute/ folder with a GPU's mlp.csv under it).
[[nodiscard]] bool is_vidur_profile(const std::filesystem::path& folder);

/// Errors of a group of rows: mean |predicted / measured - 1| and the mean signed ratio.
struct VidurLayerErrors {
  std::size_t rows = 0;
  double gemm_mre = 0.0, elementwise_mre = 0.0, layer_mre = 0.0, layer_bias = 0.0;
};

/// One row predicted: the model's layer GEMMs and element-wise kernels.
struct VidurLayerPrediction {
  const VidurLayer* row = nullptr;  ///< into the rows checked, which must outlive the check
  double gemm_s = 0.0, elementwise_s = 0.0;
};

struct VidurLayerCheck {
  std::vector<VidurLayerPrediction> predicted;
  std::map<std::string, VidurLayerErrors> groups;  ///< "GPU model"
  std::map<std::string, VidurLayerErrors> gpus;
  VidurLayerErrors all;
};

/// Every row predicted, each GPU with its own GEMM efficiency left out (`leave_gpu_out`) or with the
/// built-in fit.
[[nodiscard]] VidurLayerCheck check_vidur_layers(const std::vector<VidurLayer>& rows,
                                                 bool leave_gpu_out = true);

/// Few-shot calibration of the layer check, as an operator who profiled a few token counts of a model would
/// use it: in each (GPU, model, tp) group of more than `k` rows, the k rows whose token counts lie nearest
/// in ratio to the group's middle one (then fewer tokens, then file order) calibrate it, and its other rows
/// are predicted times exp(w x the calibration rows' mean log(measured / predicted)), for the GEMMs and for
/// the element-wise kernels each. The weight w in [0, 1] is the least-squares slope, through the origin, of
/// the other GPUs' predicted rows' log ratios on their groups' calibration means (how far a group's
/// calibration rows foretell its other rows where that can be checked); `k` 0 is the zero-shot check.
struct VidurFewShot {
  VidurLayerCheck check;  ///< the predicted rows: every row of a calibrated group but its calibration rows
  std::size_t k = 0, calibration_rows = 0, uncalibrated_rows = 0;
  std::map<std::string, std::pair<double, double>> weights;  ///< by GPU: (GEMM, element-wise)
};
[[nodiscard]] VidurFewShot few_shot_vidur_layers(const VidurLayerCheck& zero, std::size_t k);

}  // namespace fleetwatt::models
