// The GEMM-size efficiency curves: evaluation, the least-squares fit with its leave-one-GPU-out check, and
// the TOML file of the built-in curves (see the header).
#include "fleetwatt/models/fit/gemm_efficiency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "embedded_gemm_efficiency.hpp"
#include "fleetwatt/core/median.hpp"
#include "fleetwatt/core/toml_table.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"

namespace fleetwatt::models {
namespace {

/// The alternative form eta_max F / (F + F_half): time = (F + F_half) / (eta_max peak), a fixed time per
/// kernel on top of the large-GEMM rate. Linear in 1 / eta_max and F_half / eta_max: least squares of the
/// relative errors in closed form (F_half held at 0 or above).
struct FlopsCurve {
  double eta_max = 0.8, f_half = 0.0;
  [[nodiscard]] double seconds(const GemmSample& s) const {
    return (s.flops + f_half) / (eta_max * s.peak_flops);
  }
};

FlopsCurve fit_flops_curve(const std::vector<const GemmSample*>& samples) {
  // t_hat / t = a u + b v with u = F / (P t), v = 1 / (P t); minimise sum (a u + b v - 1)^2.
  double uu = 0, uv = 0, vv = 0, u1 = 0, v1 = 0;
  for (const GemmSample* s : samples) {
    const double u = s->flops / (s->peak_flops * s->seconds), v = 1.0 / (s->peak_flops * s->seconds);
    uu += u * u, uv += u * v, vv += v * v, u1 += u, v1 += v;
  }
  const double det = uu * vv - uv * uv;
  double a = u1 / uu, b = 0.0;
  if (det > 0.0) {
    const double a2 = (u1 * vv - v1 * uv) / det, b2 = (uu * v1 - uv * u1) / det;
    if (b2 >= 0.0 && a2 > 0.0) a = a2, b = b2;
  }
  return {1.0 / a, b / a};
}

double loo_error(const std::vector<GemmSample>& samples, const std::string& gpu, std::size_t min_family,
                 bool flops_form) {
  std::vector<const GemmSample*> same_family, others, test;
  std::string arch;
  for (const auto& s : samples)
    if (s.gpu == gpu) test.push_back(&s), arch = s.arch;
  for (const auto& s : samples) {
    if (s.gpu == gpu) continue;
    others.push_back(&s);
    if (s.arch == arch) same_family.push_back(&s);
  }
  const auto& train = same_family.size() >= min_family ? same_family : others;
  std::vector<double> err;
  if (flops_form) {
    const FlopsCurve c = fit_flops_curve(train);
    for (const GemmSample* s : test) err.push_back(std::abs(std::log(c.seconds(*s) / s->seconds)));
  } else {
    const GemmCurve c = fit_gemm_curve(train);
    for (const GemmSample* s : test)
      err.push_back(std::abs(std::log(s->flops / (c.eta(s->min_dim()) * s->peak_flops) / s->seconds)));
  }
  return core::median(err);
}

}  // namespace

double GemmCurve::eta(double min_dim) const noexcept {
  if (!(min_dim > 0.0)) return eta_max;
  return std::min(1.0, eta_max * min_dim / (min_dim + d_half));
}

const GemmCurve& GemmEfficiencyFit::curve(const std::string& arch) const {
  const auto it = family.find(arch);
  return it == family.end() ? pooled : it->second;
}

GemmCurve fit_gemm_curve(const std::vector<const GemmSample*>& samples) {
  // t_hat / t = x / eta_max with x = F (d + d_half) / (d P t): for a given d_half the best 1 / eta_max is
  // sum x / sum x^2; d_half is searched on a log grid (the error is smooth and one-humped in it).
  GemmCurve best;
  best.samples = samples.size();
  double best_err = -1.0;
  for (int i = 0; i <= 160; ++i) {
    const double d_half = std::pow(10.0, i / 40.0);
    double sx = 0.0, sxx = 0.0;
    for (const GemmSample* s : samples) {
      const double d = s->min_dim();
      const double x = s->flops * (d + d_half) / (d * s->peak_flops * s->seconds);
      sx += x, sxx += x * x;
    }
    if (!(sxx > 0.0)) break;
    const double a = sx / sxx, err = samples.size() - a * sx;  // sum (a x - 1)^2 at the optimum
    if (best_err < 0.0 || err < best_err) best_err = err, best.eta_max = 1.0 / a, best.d_half = d_half;
  }
  return best;
}

GemmEfficiencyFit fit_gemm_efficiency(const std::vector<GemmSample>& samples,
                                      std::size_t min_family_samples) {
  GemmEfficiencyFit fit;
  std::vector<const GemmSample*> all;
  std::map<std::string, std::vector<const GemmSample*>> by_family;
  std::set<std::string> gpus;
  for (const auto& s : samples) all.push_back(&s), by_family[s.arch].push_back(&s), gpus.insert(s.gpu);
  fit.pooled = fit_gemm_curve(all);
  for (const auto& [arch, rows] : by_family)
    if (rows.size() >= min_family_samples) fit.family[arch] = fit_gemm_curve(rows);
  for (const auto& g : gpus) {
    fit.loo_error[g] = loo_error(samples, g, min_family_samples, false);
    fit.loo_error_flops_form[g] = loo_error(samples, g, min_family_samples, true);
  }
  fit.provenance = fmt::format("{} GEMM kernels of {} GPUs in NeuSight's per-operator labels (FP32)",
                               samples.size(), gpus.size());
  return fit;
}

GemmCurve precision_curve(const GemmCurve& fp32, const GpuHardware& gpu, jobs::Precision precision) {
  using jobs::Precision;
  const double fp32_peak = matmul_peak_flops(gpu, Precision::fp32);
  const double peak = matmul_peak_flops(gpu, precision);
  double bytes = 4.0;  // FP32 and TF32 operands
  if (precision == Precision::fp16 || precision == Precision::bf16) bytes = 2.0;
  if (precision == Precision::fp8 && gpu.fp8_flops > 0.0) bytes = 1.0;
  GemmCurve c = fp32;
  if (fp32_peak > 0.0) c.d_half = fp32.d_half * (peak / fp32_peak) * (bytes / 4.0);
  return c;
}

double class_gemm_efficiency(const GemmCurve& curve, const std::vector<GemmShare>& gemms) {
  double flops = 0.0, at_peak = 0.0;
  for (const auto& g : gemms) flops += g.flops, at_peak += g.flops / curve.eta(g.min_dim);
  return at_peak > 0.0 ? flops / at_peak : curve.eta_max;
}

GemmEfficiencyFit parse_gemm_efficiency(std::string_view toml_text, const std::string& file) {
  const toml::table root = core::parse_toml(toml_text, file);
  const core::TomlTable top(root, "", file);
  top.require_known({"provenance", "pooled", "family", "loo_error", "loo_error_flops_form"});
  GemmEfficiencyFit fit;
  fit.provenance = top.string("provenance").value_or("");
  const auto read_curve = [](const core::TomlTable& t) {
    t.require_known({"eta_max", "d_half", "samples"});
    GemmCurve c;
    const auto eta = t.number_at_least("eta_max", 0.0, true);
    const auto half = t.number_at_least("d_half", 0.0, false);
    if (!eta || !half)
      throw core::ConfigError(t.where(), t.dotted("eta_max"), "a curve needs eta_max and d_half");
    if (*eta > 1.0)
      throw core::ConfigError(t.value_where("eta_max"), t.dotted("eta_max"), "must be at most 1");
    c.eta_max = *eta, c.d_half = *half;
    c.samples = static_cast<std::size_t>(t.integer("samples", 0, std::int64_t{1} << 40).value_or(0));
    return c;
  };
  const auto pooled = top.table("pooled");
  if (!pooled) throw core::ConfigError(top.where(), "pooled", "a GEMM efficiency file needs [pooled]");
  fit.pooled = read_curve(*pooled);
  if (const auto fam = top.table("family"))
    for (const auto& [arch, t] : fam->named_tables()) fit.family[arch] = read_curve(t);
  for (const auto& [key, target] :
       {std::pair{"loo_error", &fit.loo_error}, std::pair{"loo_error_flops_form", &fit.loo_error_flops_form}})
    if (const auto t = top.table(key))
      for (const auto& [gpu, node] : t->raw())
        (*target)[std::string(gpu.str())] = t->number(std::string(gpu.str())).value_or(0.0);
  return fit;
}

std::string format_gemm_efficiency(const GemmEfficiencyFit& fit) {
  std::string out =
      "# GEMM efficiency by size (models/fit/gemm_efficiency.hpp): eta(d) = eta_max d / (d + d_half), d the\n"
      "# smallest of M, N, K. Generated: do not edit; run tools/scripts/fit-gemm-efficiency.sh.\n";
  out += fmt::format("provenance = \"{}\"\n", fit.provenance);
  const auto curve = [](const std::string& name, const GemmCurve& c) {
    return fmt::format("\n[{}]\neta_max = {:.6g}\nd_half = {:.6g}\nsamples = {}\n", name, c.eta_max, c.d_half,
                       c.samples);
  };
  out += curve("pooled", fit.pooled);
  for (const auto& [arch, c] : fit.family) out += curve("family." + arch, c);
  out +=
      "\n# Leave-one-GPU-out: median |ln(predicted / measured kernel time)| of each GPU, fitted without "
      "it.\n";
  out += "[loo_error]\n";
  for (const auto& [g, e] : fit.loo_error) out += fmt::format("\"{}\" = {:.4g}\n", g, e);
  out += "\n# The same for the rejected form eta_max F / (F + F_half), F the kernel's FLOPs.\n";
  out += "[loo_error_flops_form]\n";
  for (const auto& [g, e] : fit.loo_error_flops_form) out += fmt::format("\"{}\" = {:.4g}\n", g, e);
  return out;
}

const GemmEfficiencyFit& default_gemm_efficiency() {
  static const GemmEfficiencyFit fit =
      parse_gemm_efficiency(detail::kEmbeddedGemmEfficiency, "gemm_efficiency.toml");
  return fit;
}

}  // namespace fleetwatt::models
