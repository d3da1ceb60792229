// How the tensor-core GEMM constants are fitted: unique kernels per GPU and source, the least-squares fit of
// d_half, eta_max and t0, the MAMF ratios, and the leave-one-GPU-out check (see the header).
#include "fleetwatt/models/fit/tensor_gemm_fit.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>

#include "fleetwatt/core/median.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"

namespace fleetwatt::models {
namespace {

using jobs::Precision;

bool sixteen_bit(Precision p) {
  return p == Precision::fp16 || p == Precision::bf16;
}

/// One unique GEMM shape of one GPU and source, as the fit sees it.
struct Kernel {
  std::string gpu, source;
  double at_peak_s = 0;  ///< F / peak: its time at the full peak
  double min_dim = 0;
  double seconds = 0;  ///< median measured time of the shape's repeats
  double weight = 0;   ///< 1 / the kernels of its (GPU, source) group
};

/// The 16-bit samples as unique shapes per (GPU, source), each group of total weight 1: vidur times the
/// same GEMM for several models (Llama-2-70B and CodeLlama-34B share their attention shapes), and without
/// the median each shape would count as often as it repeats.
std::vector<Kernel> unique_kernels(const std::vector<TensorGemmSample>& samples) {
  using Key = std::tuple<std::string, std::string, double, double, double, double>;
  std::map<Key, std::vector<const TensorGemmSample*>> shapes;
  for (const auto& s : samples)
    if (sixteen_bit(s.precision) && s.seconds > 0.0 && s.peak_flops > 0.0 && s.min_dim() > 0.0)
      shapes[{s.gpu, s.source, s.batch, s.m, s.n, s.k}].push_back(&s);
  std::map<std::pair<std::string, std::string>, double> group_size;
  for (const auto& [key, rows] : shapes) group_size[{std::get<0>(key), std::get<1>(key)}] += 1.0;
  std::vector<Kernel> out;
  for (const auto& [key, rows] : shapes) {
    std::vector<double> t;
    for (const auto* s : rows) t.push_back(s->seconds);
    const TensorGemmSample& s = *rows.front();
    out.push_back({s.gpu, s.source, s.flops / s.peak_flops, s.min_dim(), core::median(t),
                   1.0 / group_size.at({s.gpu, s.source})});
  }
  return out;
}

/// d_half, eta_max per GPU and t0 per source of least relative-error loss.
struct CoreFit {
  double d_half = 0;
  std::map<std::string, double> eta_max, t0;
};

CoreFit fit_core(const std::vector<const Kernel*>& kernels) {
  // Unknowns: 1 / eta_max per GPU, then t0 per source in microseconds (so that the columns are of one
  // scale). t_pred / t - 1 = a z_gpu + b z_source - 1 with a = F (1 + d_half / d) / (P t), b = 1e-6 / t.
  std::map<std::string, int> gpu_col, source_col;
  for (const Kernel* k : kernels) gpu_col.emplace(k->gpu, 0), source_col.emplace(k->source, 0);
  int cols = 0;
  for (auto& [g, c] : gpu_col) c = cols++;
  for (auto& [s, c] : source_col) c = cols++;
  struct Row {
    int g, s;
    double u, inv_d, b, w;
  };
  std::vector<Row> rows;
  rows.reserve(kernels.size());
  for (const Kernel* k : kernels)
    rows.push_back({gpu_col.at(k->gpu), source_col.at(k->source), k->at_peak_s / k->seconds, 1.0 / k->min_dim,
                    1e-6 / k->seconds, k->weight});
  CoreFit best;
  double best_loss = -1.0;
  Eigen::VectorXd best_z;
  for (int i = 40; i <= 160; ++i) {  // d_half from 10 to 10^4 elements, 1/40 decade apart
    const double d_half = std::pow(10.0, i / 40.0);
    Eigen::MatrixXd normal = Eigen::MatrixXd::Zero(cols, cols);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(cols);
    for (const Row& r : rows) {
      const double a = r.u * (1.0 + d_half * r.inv_d);
      normal(r.g, r.g) += r.w * a * a, normal(r.g, r.s) += r.w * a * r.b, normal(r.s, r.s) += r.w * r.b * r.b;
      rhs(r.g) += r.w * a, rhs(r.s) += r.w * r.b;
    }
    normal.triangularView<Eigen::StrictlyLower>() = normal.transpose();
    // A t0 the free solution makes negative is held at 0 (a source faster than the model's floor), one at a
    // time, most negative first.
    std::vector<bool> held(static_cast<std::size_t>(cols), false);
    Eigen::VectorXd z;
    for (;;) {
      std::vector<int> free;
      for (int c = 0; c < cols; ++c)
        if (!held[static_cast<std::size_t>(c)]) free.push_back(c);
      const auto n = static_cast<Eigen::Index>(free.size());
      Eigen::MatrixXd nf(n, n);
      Eigen::VectorXd rf(n);
      for (Eigen::Index x = 0; x < n; ++x) {
        rf(x) = rhs(free[static_cast<std::size_t>(x)]);
        for (Eigen::Index y = 0; y < n; ++y)
          nf(x, y) = normal(free[static_cast<std::size_t>(x)], free[static_cast<std::size_t>(y)]);
      }
      const Eigen::VectorXd zf = nf.ldlt().solve(rf);
      z = Eigen::VectorXd::Zero(cols);
      for (Eigen::Index x = 0; x < n; ++x) z(free[static_cast<std::size_t>(x)]) = zf(x);
      int worst = -1;
      for (const auto& [s, c] : source_col)
        if (z(c) < 0.0 && (worst < 0 || z(c) < z(worst))) worst = c;
      if (worst < 0) break;
      held[static_cast<std::size_t>(worst)] = true;
    }
    double loss = 0.0;
    for (const Row& r : rows) {
      const double e = r.u * (1.0 + d_half * r.inv_d) * z(r.g) + r.b * z(r.s) - 1.0;
      loss += r.w * e * e;
    }
    if (best_loss < 0.0 || loss < best_loss) best_loss = loss, best.d_half = d_half, best_z = z;
  }
  for (const auto& [g, c] : gpu_col) best.eta_max[g] = 1.0 / best_z(c);
  for (const auto& [s, c] : source_col) best.t0[s] = best_z(c) * 1e-6;
  return best;
}

/// The fit of the kernels' shape and efficiencies, with the MAMF figures and the two ratios (no
/// leave-one-GPU-out check).
TensorGemmFit fit_without_check(const std::vector<const Kernel*>& kernels,
                                const std::vector<MamfFigure>& mamf) {
  TensorGemmFit fit;
  const CoreFit core = fit_core(kernels);
  fit.d_half = core.d_half, fit.eta_max = core.eta_max, fit.t0_by_source = core.t0;
  const auto vidur = core.t0.find("vidur");
  if (vidur != core.t0.end())
    fit.t0_s = vidur->second;
  else if (const auto m = fleetwatt::core::median_of_values(core.t0))
    fit.t0_s = *m;
  for (const auto& f : mamf) {
    const GpuHardware* hw = find_gpu_preset(f.gpu);
    if (!hw) continue;
    const double peak = matmul_peak_flops(*hw, f.precision);
    if (sixteen_bit(f.precision)) fit.mamf_bf16[f.gpu] = f.flops / peak;
    if (f.precision == Precision::fp8 && hw->fp8_flops > 0.0) fit.mamf_fp8[f.gpu] = f.flops / peak;
  }
  std::map<std::string, double> to_mamf, fp8_over_bf16;
  for (const auto& [g, eta] : fit.eta_max)
    if (fit.mamf_bf16.count(g)) to_mamf[g] = eta / fit.mamf_bf16.at(g);
  for (const auto& [g, fp8] : fit.mamf_fp8)
    if (fit.mamf_bf16.count(g)) fp8_over_bf16[g] = fp8 / fit.mamf_bf16.at(g);
  if (const auto r = fleetwatt::core::median_of_values(to_mamf)) fit.mamf_ratio = *r;
  if (const auto r = fleetwatt::core::median_of_values(fp8_over_bf16)) fit.fp8_ratio = *r;
  return fit;
}

}  // namespace

TensorGemmFit fit_tensor_gemm(const std::vector<TensorGemmSample>& samples,
                              const std::vector<MamfFigure>& mamf) {
  const std::vector<Kernel> kernels = unique_kernels(samples);
  std::vector<const Kernel*> all;
  for (const auto& k : kernels) all.push_back(&k);
  TensorGemmFit fit = fit_without_check(all, mamf);
  // Leave-one-GPU-out: the fit without the GPU's kernels gives its eta_max by the rule (its MAMF figure, a
  // datasheet-like number, stays; mamf_ratio comes from the others) and t0 of its source.
  for (const auto& entry : fit.eta_max) {
    const std::string& gpu = entry.first;  // a plain reference: clang 14 cannot capture a structured binding
    std::vector<const Kernel*> train, test;
    for (const Kernel* k : all) (k->gpu == gpu ? test : train).push_back(k);
    if (train.empty()) continue;
    const TensorGemmFit without = fit_without_check(train, mamf);
    const GpuHardware* hw = find_gpu_preset(gpu);
    GpuHardware held_out;
    if (hw) held_out = *hw;
    held_out.id = gpu;
    const TensorGemmEfficiency e = tensor_gemm_efficiency(without, held_out, Precision::bf16);
    std::vector<double> err;
    double sum = 0.0;
    for (const Kernel* k : test) {
      const auto t0 = without.t0_by_source.find(k->source);
      const double pred = k->at_peak_s / e.eta_max * (1.0 + without.d_half / k->min_dim) +
                          (t0 != without.t0_by_source.end() ? t0->second : without.t0_s);
      err.push_back(std::abs(std::log(pred / k->seconds)));
      sum += err.back();
    }
    fit.loo_error[gpu] = core::median(err);
    fit.loo_error_mean[gpu] = sum / static_cast<double>(err.size());
    fit.rule[gpu] = e.rule;
  }
  std::set<std::string> sources;
  std::map<std::string, std::size_t> per_gpu;
  for (const auto& k : kernels) sources.insert(k.source), ++per_gpu[k.gpu];
  std::string counts;
  for (const auto& [g, n] : per_gpu) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", g, n);
  fit.provenance =
      fmt::format("{} unique 16-bit GEMM shapes ({}) of {} ({} samples); MAMF figures of {} GPUs",
                  kernels.size(), counts, fmt::join(sources, " and "),
                  std::count_if(samples.begin(), samples.end(),
                                [](const TensorGemmSample& s) { return sixteen_bit(s.precision); }),
                  fit.mamf_bf16.size());
  return fit;
}

}  // namespace fleetwatt::models
