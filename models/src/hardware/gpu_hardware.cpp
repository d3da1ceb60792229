// GPU presets: the built-in table (models/data/gpu_presets.toml, compiled in as text by CMake) and user
// preset files in the same format. Parsing happens here alone (through core's TomlTable); everything else
// sees GpuHardware structs.
#include "fleetwatt/models/hardware/gpu_hardware.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "embedded_gpu_presets.hpp"
#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/toml_table.hpp"

namespace fleetwatt::models {
namespace {

using core::ConfigError;
using core::SourceLocation;
using jobs::Precision;

const std::vector<std::string> kKeys{"id",
                                     "name",
                                     "tdp_w",
                                     "idle_w",
                                     "fp32_tflops",
                                     "tf32_tflops",
                                     "fp16_tflops",
                                     "fp8_tflops",
                                     "memory_gib",
                                     "memory_bw_gbytes_per_s",
                                     "nvlink_gbytes_per_s",
                                     "pcie_gbytes_per_s",
                                     "source",
                                     "arch",
                                     "fp32_matrix_tflops",
                                     "resident_w",
                                     "memory_type",
                                     "nvlink_domain_gpus"};

GpuHardware parse_one(const core::TomlTable& t) {
  t.require_known(kKeys);
  const auto text = [&](const char* key, bool required) -> std::string {
    const auto v = t.string(key);
    if (!v && required) t.fail(key, "missing in [[gpu]]");
    return v.value_or("");
  };
  // Required figures must be positive; optional ones (a precision or link the GPU lacks) default to 0.
  const auto number = [&](const char* key, bool required) -> double {
    const auto v = t.number(key);
    if (!v) {
      if (required) t.fail(key, "missing in [[gpu]]");
      return 0.0;
    }
    if (*v < 0.0 || (required && *v == 0.0))
      t.fail(key, required ? "must be positive" : "must not be negative");
    // Far above any GPU's figure in its unit (W, TFLOP/s, GiB, GB/s), and low enough that scaling it to
    // FLOP/s or bytes stays finite (1e300 TFLOP/s became an infinite FLOP rate).
    if (*v > 1e6) t.fail(key, fmt::format("{} is beyond any GPU's (at most 1e6)", *v));
    return *v;
  };
  GpuHardware g;
  g.id = text("id", true);
  if (g.id.empty()) t.fail("id", "must not be empty");
  g.name = text("name", false);
  if (g.name.empty()) g.name = g.id;
  g.tdp_W = number("tdp_w", true);
  g.idle_W = number("idle_w", true);
  if (g.idle_W >= g.tdp_W) t.fail("idle_w", "must be below tdp_w");
  g.fp32_flops = number("fp32_tflops", true) * 1e12;
  g.tf32_flops = number("tf32_tflops", false) * 1e12;
  g.fp16_flops = number("fp16_tflops", false) * 1e12;
  g.fp8_flops = number("fp8_tflops", false) * 1e12;
  g.memory_bytes = number("memory_gib", true) * 1024.0 * 1024.0 * 1024.0;
  g.memory_bw_Bps = number("memory_bw_gbytes_per_s", true) * 1e9;
  g.nvlink_bw_Bps = number("nvlink_gbytes_per_s", false) * 1e9;
  g.pcie_bw_Bps = number("pcie_gbytes_per_s", true) * 1e9;
  g.source = text("source", false);
  g.arch = text("arch", false);
  g.fp32_matrix_flops = number("fp32_matrix_tflops", false) * 1e12;
  g.resident_W = number("resident_w", false);
  g.memory_type = text("memory_type", false);
  if (const auto d = t.integer("nvlink_domain_gpus", 1, 1 << 20))
    g.nvlink_domain_gpus = static_cast<std::uint32_t>(*d);
  if (!g.memory_type.empty() && g.memory_type != "hbm" && g.memory_type != "gddr")
    t.fail("memory_type", "must be \"hbm\" or \"gddr\"");
  if (g.resident_W > 0.0 && g.resident_W >= g.tdp_W) t.fail("resident_w", "must be below tdp_w");
  return g;
}

}  // namespace

double GpuHardware::peak_flops(Precision p) const noexcept {
  // Fall back to the next slower precision the GPU has: FP8 -> FP16 -> TF32 -> FP32.
  const double fp32 = fp32_flops;
  const double tf32 = tf32_flops > 0.0 ? tf32_flops : fp32;
  const double fp16 = fp16_flops > 0.0 ? fp16_flops : tf32;
  switch (p) {
    case Precision::fp32:
      return fp32;
    case Precision::tf32:
      return tf32;
    case Precision::fp16:
    case Precision::bf16:
      return fp16;
    case Precision::fp8:
      return fp8_flops > 0.0 ? fp8_flops : fp16;
  }
  return fp32;
}

double GpuHardware::gemm_peak_flops(Precision p) const noexcept {
  if (p == Precision::fp32 && fp32_matrix_flops > fp32_flops) return fp32_matrix_flops;
  return peak_flops(p);
}

std::vector<GpuHardware> parse_gpu_presets(std::string_view toml_text, const std::string& file) {
  const toml::table root = core::parse_toml(toml_text, file);
  const core::TomlTable top(root, "", file);
  // A preset file holds [[gpu]] tables only.
  top.require_known({"gpu"});
  const auto tables = top.tables("gpu");
  if (tables.empty()) throw ConfigError({file, 0, 0}, "gpu", "no [[gpu]] tables");
  std::vector<GpuHardware> out;
  for (const auto& t : tables) {
    GpuHardware g = parse_one(t);
    for (const auto& other : out)
      if (other.id == g.id) t.fail("id", "duplicate preset id '" + g.id + "'");
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<GpuHardware> load_gpu_preset_file(const std::filesystem::path& file) {
  const auto text = core::read_file_text(file);
  if (!text) throw ConfigError({file.string(), 0, 0}, "file", "cannot open the GPU preset file");
  return parse_gpu_presets(*text, file.string());
}

const std::vector<GpuHardware>& gpu_presets() {
  static const std::vector<GpuHardware> presets =
      parse_gpu_presets(detail::kEmbeddedGpuPresets, "models/data/gpu_presets.toml");
  return presets;
}

std::string gpu_preset_ids(const std::vector<GpuHardware>& extra) {
  std::string out;
  for (const auto& g : extra) out += (out.empty() ? "" : ", ") + g.id;
  for (const auto& g : gpu_presets()) {
    bool shadowed = false;
    for (const auto& e : extra) shadowed = shadowed || e.id == g.id;
    if (!shadowed) out += (out.empty() ? "" : ", ") + g.id;
  }
  return out;
}

const GpuHardware& gpu_preset(std::string_view id) {
  if (const GpuHardware* g = find_gpu_preset(id)) return *g;
  throw std::out_of_range(fmt::format("unknown GPU '{}'; known GPUs: {}", id, gpu_preset_ids()));
}

const GpuHardware* find_gpu_preset(std::string_view id) {
  for (const auto& g : gpu_presets())
    if (g.id == id) return &g;
  return nullptr;
}

GpuHardware find_gpu(std::string_view id, const std::vector<GpuHardware>& extra) {
  for (const auto& g : extra)
    if (g.id == id) return g;
  for (const auto& g : gpu_presets())
    if (g.id == id) return g;
  throw std::out_of_range(fmt::format("unknown GPU '{}'; known GPUs: {}", id, gpu_preset_ids(extra)));
}

}  // namespace fleetwatt::models
