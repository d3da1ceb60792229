// The step model's calibration factors: the built-in file and its TOML form (see the header).
#include "fleetwatt/models/training/step_calibration.hpp"

#include <fmt/format.h>

#include "embedded_step_calibration.hpp"
#include "fleetwatt/core/toml_table.hpp"

namespace fleetwatt::models {

StepCalibration parse_step_calibration(std::string_view toml_text, const std::string& file) {
  const toml::table root = core::parse_toml(toml_text, file);
  const core::TomlTable top(root, "", file);
  top.require_known({"provenance", "gemm_factor", "attention_factor", "flash2_factor", "tp_overlap", "rows",
                     "mean_abs_error", "loo_error"});
  StepCalibration c;
  c.provenance = top.string("provenance").value_or("");
  const auto required = [&](const char* key, double lo) {
    const auto v = top.number_at_least(key, lo, false);
    if (!v) throw core::ConfigError(top.where(), key, "missing in a step calibration");
    return *v;
  };
  c.gemm_factor = required("gemm_factor", 0.0);
  c.attention_factor = required("attention_factor", 0.0);
  c.flash2_factor = required("flash2_factor", 0.0);
  c.tp_overlap = required("tp_overlap", 0.0);
  if (c.tp_overlap > 1.0) top.fail("tp_overlap", "is a share: at most 1");
  if (!(c.gemm_factor > 0.0)) top.fail("gemm_factor", "must be positive");
  if (!(c.attention_factor > 0.0)) top.fail("attention_factor", "must be positive");
  if (!(c.flash2_factor > 0.0)) top.fail("flash2_factor", "must be positive");
  c.rows = static_cast<std::size_t>(top.integer("rows", 0, std::int64_t{1} << 40).value_or(0));
  c.mean_abs_error = top.number_at_least("mean_abs_error", 0.0, false).value_or(0.0);
  if (const auto t = top.table("loo_error"))
    for (const auto& [name, node] : t->raw()) {
      const std::string k(name.str());
      c.loo_error[k] = *t->number_at_least(k, 0.0, false);
    }
  return c;
}

std::string format_step_calibration(const StepCalibration& c) {
  std::string out =
      "# The 3D-parallel step model's calibration on published step times "
      "(models/training/step_calibration.hpp).\n"
      "# Generated: do not edit; run tools/scripts/fit-step-calibration.sh.\n";
  out += fmt::format("provenance = \"{}\"\n", c.provenance);
  out += fmt::format("gemm_factor = {:.6g}  # a GEMM in a step / the isolated kernel\n", c.gemm_factor);
  out += fmt::format("attention_factor = {:.6g}  # fused attention / a head-width GEMM of its FLOPs\n",
                     c.attention_factor);
  out += fmt::format("flash2_factor = {:.6g}  # FlashAttention-2 / a head-width GEMM of its FLOPs\n",
                     c.flash2_factor);
  out += fmt::format("tp_overlap = {:.6g}  # tensor-parallel traffic hidden by comm overlap\n", c.tp_overlap);
  out += fmt::format("rows = {}\n", c.rows);
  out += fmt::format("mean_abs_error = {:.4g}  # in-sample, |predicted / published - 1|\n", c.mean_abs_error);
  out +=
      "\n# Each source left out: the mean |error| of its rows, the factors fitted on the "
      "others.\n[loo_error]\n";
  for (const auto& [k, v] : c.loo_error) out += fmt::format("\"{}\" = {:.4g}\n", k, v);
  return out;
}

const StepCalibration& default_step_calibration() {
  static const StepCalibration c =
      parse_step_calibration(detail::kEmbeddedStepCalibration, "step_calibration.toml");
  return c;
}

}  // namespace fleetwatt::models
