// The tensor-core GEMM time model's constants: the rule that gives any GPU its large-GEMM efficiency, the
// time of one GEMM, and the TOML file of the built-in fit (see the header). How the constants are fitted is
// tensor_gemm_fit.cpp.
#include "fleetwatt/models/hardware/tensor_gemm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "embedded_tensor_gemm.hpp"
#include "fleetwatt/core/median.hpp"
#include "fleetwatt/core/toml_table.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"

namespace fleetwatt::models {
namespace {

using jobs::Precision;

/// The architecture family of a built-in preset ("" when there is none of that id).
std::string preset_arch(const std::string& id) {
  const GpuHardware* g = find_gpu_preset(id);
  return g ? g->arch : "";
}

}  // namespace

TensorGemmEfficiency tensor_gemm_efficiency(const TensorGemmFit& fit, const GpuHardware& gpu,
                                            jobs::Precision precision) {
  if (precision == Precision::fp32)
    throw std::invalid_argument("tensor-core GEMM efficiency: FP32 GEMMs take the NeuSight curves");
  if (fit.eta_max.empty()) throw std::invalid_argument("tensor-core GEMM efficiency: the fit has no GPU");
  const auto sixteen = [&]() -> TensorGemmEfficiency {
    if (const auto it = fit.eta_max.find(gpu.id); it != fit.eta_max.end()) return {it->second, "fitted"};
    if (const auto it = fit.mamf_bf16.find(gpu.id); it != fit.mamf_bf16.end())
      return {std::min(1.0, fit.mamf_ratio * it->second), "MAMF"};
    if (!gpu.arch.empty())
      if (const auto m = core::median_of_values(
              fit.eta_max, [&](const std::string& id) { return preset_arch(id) == gpu.arch; }))
        return {*m, "family " + gpu.arch};
    return {*core::median_of_values(fit.eta_max), "pooled"};
  };
  if (precision != Precision::fp8) return sixteen();
  if (!(gpu.fp8_flops > 0.0)) {  // FP8 runs on the 16-bit path (matmul_peak_flops falls back to it too)
    TensorGemmEfficiency e = sixteen();
    e.rule += " (no FP8 path: the 16-bit rate)";
    return e;
  }
  if (const auto it = fit.mamf_fp8.find(gpu.id); it != fit.mamf_fp8.end())
    return {std::min(1.0, fit.mamf_ratio * it->second), "MAMF"};
  TensorGemmEfficiency e = sixteen();
  e.eta_max = std::min(1.0, e.eta_max * fit.fp8_ratio);
  e.rule += " x fp8_ratio";
  return e;
}

double tensor_gemm_seconds(const TensorGemmFit& fit, const GpuHardware& gpu, jobs::Precision precision,
                           double m, double n, double k, double batch) {
  const double eta = tensor_gemm_efficiency(fit, gpu, precision).eta_max;
  const double d = std::min({m, n, k});
  if (!(d > 0.0) || !(batch > 0.0)) return fit.t0_s;  // no work: the kernel's fixed time alone
  const double flops = 2.0 * batch * m * n * k;
  return flops / (eta * matmul_peak_flops(gpu, precision)) * (1.0 + fit.d_half / d) + fit.t0_s;
}

TensorGemmFit parse_tensor_gemm(std::string_view toml_text, const std::string& file) {
  const toml::table root = core::parse_toml(toml_text, file);
  const core::TomlTable top(root, "", file);
  top.require_known({"provenance", "d_half", "t0_s", "mamf_ratio", "fp8_ratio", "t0_by_source", "eta_max",
                     "mamf_bf16", "mamf_fp8", "loo_error", "loo_error_mean"});
  TensorGemmFit fit;
  fit.provenance = top.string("provenance").value_or("");
  const auto required = [&](const char* key, double lo, bool strict) {
    const auto v = top.number_at_least(key, lo, strict);
    if (!v) throw core::ConfigError(top.where(), key, "missing in a tensor GEMM fit");
    return *v;
  };
  fit.d_half = required("d_half", 0.0, false);
  fit.t0_s = required("t0_s", 0.0, false);
  fit.mamf_ratio = required("mamf_ratio", 0.0, true);
  fit.fp8_ratio = required("fp8_ratio", 0.0, true);
  // Tables of numbers keyed by GPU preset or source; `at_most_one`: a fraction of a peak, in (0, 1].
  const auto read_map = [&](const char* key, std::map<std::string, double>& out, bool at_most_one) {
    const auto t = top.table(key);
    if (!t) return;
    for (const auto& [name, node] : t->raw()) {
      const std::string k(name.str());
      const double v = *t->number_at_least(k, 0.0, at_most_one);
      if (at_most_one && v > 1.0) t->fail(k, fmt::format("must be at most 1, got {}", v));
      out[k] = v;
    }
  };
  read_map("t0_by_source", fit.t0_by_source, false);
  read_map("eta_max", fit.eta_max, true);
  read_map("mamf_bf16", fit.mamf_bf16, true);
  read_map("mamf_fp8", fit.mamf_fp8, true);
  read_map("loo_error", fit.loo_error, false);
  read_map("loo_error_mean", fit.loo_error_mean, false);
  if (fit.eta_max.empty())
    throw core::ConfigError(top.where("eta_max"), "eta_max", "a tensor GEMM fit needs a fitted GPU");
  return fit;
}

std::string format_tensor_gemm(const TensorGemmFit& fit) {
  std::string out =
      "# Tensor-core GEMM time (models/hardware/tensor_gemm.hpp): t = F / (eta_max peak) (1 + d_half / d)\n"
      "# + t0, d the smallest of M, N, K. Generated: do not edit; run tools/scripts/fit-tensor-gemm.sh.\n";
  out += fmt::format("provenance = \"{}\"\n", fit.provenance);
  out += fmt::format("d_half = {:.6g}  # elements\n", fit.d_half);
  out += fmt::format("t0_s = {:.6g}  # per kernel: the vidur source's\n", fit.t0_s);
  out += fmt::format("mamf_ratio = {:.6g}  # median fitted eta_max / (MAMF BF16 / peak)\n", fit.mamf_ratio);
  out += fmt::format("fp8_ratio = {:.6g}  # median (MAMF FP8 / FP8 peak) / (MAMF BF16 / BF16 peak)\n",
                     fit.fp8_ratio);
  const auto table = [&](const char* comment, const char* name, const std::map<std::string, double>& values,
                         const std::map<std::string, std::string>& notes) {
    out += fmt::format("\n# {}\n[{}]\n", comment, name);
    for (const auto& [key, v] : values) {
      const auto note = notes.find(key);
      out += fmt::format("\"{}\" = {:.6g}{}\n", key, v, note == notes.end() ? "" : "  # " + note->second);
    }
  };
  const std::map<std::string, std::string> none;
  table("Fixed time per kernel of each data source, s.", "t0_by_source", fit.t0_by_source, none);
  table("Fitted large-GEMM efficiency of the 16-bit path per GPU preset.", "eta_max", fit.eta_max, none);
  table("MAMF / the preset's peak (ml-engineering's table).", "mamf_bf16", fit.mamf_bf16, none);
  table("The same in FP8.", "mamf_fp8", fit.mamf_fp8, none);
  table(
      "Leave-one-GPU-out: median |ln(predicted / measured kernel time)| of each GPU, fitted without it\n"
      "# (after each: the rule that gave it eta_max).",
      "loo_error", fit.loo_error, fit.rule);
  table("The same, mean.", "loo_error_mean", fit.loo_error_mean, none);
  return out;
}

const TensorGemmFit& default_tensor_gemm() {
  static const TensorGemmFit fit = parse_tensor_gemm(detail::kEmbeddedTensorGemm, "tensor_gemm.toml");
  return fit;
}

}  // namespace fleetwatt::models