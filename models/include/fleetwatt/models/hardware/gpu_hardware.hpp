// A GPU's datasheet: what predictors need to turn FLOPs and bytes into seconds and watts.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::models {

struct GpuHardware {
  std::string id;           ///< preset id ("a800", "h100-sxm", ...)
  std::string name;         ///< marketing name
  double tdp_W = 0.0;       ///< board power limit at default settings
  double idle_W = 0.0;      ///< typical idle draw
  double fp32_flops = 0.0;  ///< peak dense FLOP/s per precision (0: not supported)
  double tf32_flops = 0.0;
  double fp16_flops = 0.0;  ///< FP16 and BF16 tensor throughput
  double fp8_flops = 0.0;
  double memory_bytes = 0.0;
  double memory_bw_Bps = 0.0;  ///< bytes/s
  double nvlink_bw_Bps = 0.0;  ///< per GPU, per direction (0: none)
  double pcie_bw_Bps = 0.0;    ///< per direction
  std::string source;          ///< where the figures come from
  /// Architecture family ("volta", "turing", "ampere", "ada", "hopper", "pascal", "maxwell", "cdna1",
  /// "cdna2"): the roofline's efficiencies are fitted per family; empty means unknown (pooled values).
  std::string arch;
  /// FP32 matrix-unit throughput where FP32 GEMMs run on matrix cores (AMD CDNA MFMA); 0: fp32_flops.
  double fp32_matrix_flops = 0.0;
  /// Measured resident power (context loaded, clocks up, no kernels running); 0: not measured, the power
  /// model's family rule fills it.
  double resident_W = 0.0;
  /// Board memory: "hbm" (stacked, data-centre parts) or "gddr"; the power model's resident-floor rule
  /// differs between them. Empty: "gddr".
  std::string memory_type;
  /// GPUs one NVLink domain joins at nvlink_bw_Bps (a GB200 NVL72 rack: 72, across its 18 trays); 0: the
  /// GPUs of one server (the predictor's and the fleet's gpus_per_node).
  std::uint32_t nvlink_domain_gpus = 0;

  /// Peak dense throughput for a precision, falling back to the nearest supported one.
  [[nodiscard]] double peak_flops(jobs::Precision p) const noexcept;
  /// Peak of the GEMM path for a precision (FP32 on matrix units where the GPU has them).
  [[nodiscard]] double gemm_peak_flops(jobs::Precision p) const noexcept;
};

/// The built-in preset with this id; throws std::out_of_range listing the known ids when there is none.
[[nodiscard]] const GpuHardware& gpu_preset(std::string_view id);
/// Every built-in preset, in a stable order.
[[nodiscard]] const std::vector<GpuHardware>& gpu_presets();
/// The built-in preset of this id, or nullptr.
[[nodiscard]] const GpuHardware* find_gpu_preset(std::string_view id);
/// Comma-separated ids of the built-in presets (and of `extra`), for messages.
[[nodiscard]] std::string gpu_preset_ids(const std::vector<GpuHardware>& extra = {});

/// Parses presets in the format of models/data/gpu_presets.toml ([[gpu]] tables). `file` names the text in
/// messages. Throws jobs::ConfigError naming file, line, column and key for a malformed entry.
[[nodiscard]] std::vector<GpuHardware> parse_gpu_presets(std::string_view toml_text, const std::string& file);
/// Reads a user's preset file (same format as the built-in one).
[[nodiscard]] std::vector<GpuHardware> load_gpu_preset_file(const std::filesystem::path& file);
/// The preset with this id, looked up in `extra` (user presets, which may redefine a built-in) first, then
/// in the built-ins; throws std::out_of_range listing every known id when there is none.
[[nodiscard]] GpuHardware find_gpu(std::string_view id, const std::vector<GpuHardware>& extra = {});

}  // namespace fleetwatt::models
