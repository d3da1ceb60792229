// Cluster-calibrated generator presets: fitting and generation.
#include "fleetwatt/jobs/cluster_presets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/jobs/random.hpp"

namespace fleetwatt::jobs {

const std::vector<ClusterPreset>& cluster_presets() {
  // Figures: AcmeTrace data/cluster_summary.csv (Hu et al., NSDI 2024), GPU jobs only. The fixed single-GPU
  // share (0.7) is an assumption that puts the published median of 1 GPU in place; the tail carries the mean.
  static const std::vector<ClusterPreset> presets{
      {"philly",
       "Microsoft Philly 2017 (Jeon et al., ATC'19)",
       874.0,
       18006.055,
       4240676.0,
       1.928,
       128,
       0.604,
       0.09,
       0.305,
       {{1.0, 0.7}},
       2.0},
      {"helios",
       "SenseTime Helios 2020 (Hu et al., SC'21)",
       206.0,
       6651.681,
       4320009.0,
       3.716,
       2048,
       0.624,
       0.221,
       0.155,
       {{1.0, 0.7}},
       2.0},
      // PAI shares GPUs: the published median is half a GPU and the mean 0.683; quarter and half GPUs take
      // 60 % of the jobs. The summary gives no status shares for PAI: every job completes.
      {"pai",
       "Alibaba PAI 2020 (Weng et al., NSDI'22)",
       480.667,
       4787.109,
       626371.0,
       0.683,
       8,
       1.0,
       0.0,
       0.0,
       {{0.25, 0.2}, {0.5, 0.4}},
       1.0},
      {"seren",
       "Shanghai AI Lab Seren 2023 (Hu et al., NSDI'24)",
       122.0,
       1414.335,
       1209604.0,
       5.68,
       1024,
       0.497,
       0.075,
       0.429,
       {{1.0, 0.7}},
       2.0},
      {"kalos",
       "Shanghai AI Lab Kalos 2023 (Hu et al., NSDI'24)",
       124.0,
       1259.689,
       625740.0,
       26.77,
       1024,
       0.541,
       0.062,
       0.397,
       {{1.0, 0.7}},
       2.0},
  };
  return presets;
}

const ClusterPreset& cluster_preset(std::string_view name) {
  std::string list;
  for (const auto& p : cluster_presets()) {
    if (p.name == name) return p;
    if (!list.empty()) list += ", ";
    list += p.name;
  }
  throw ConfigError({}, "preset", fmt::format("unknown cluster preset '{}' (known: {})", name, list));
}

double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("normal_quantile: p must lie in (0, 1)");
  // Acklam's coefficients (relative error 1.15e-9), then one Halley step against erfc.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p > 1 - 0.02425) {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

namespace {

double phi(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

double radical_inverse(std::uint64_t base, std::uint64_t i) {
  double inv = 1.0 / static_cast<double>(base), f = inv, r = 0.0;
  while (i > 0) {
    r += f * static_cast<double>(i % base);
    i /= base;
    f *= inv;
  }
  return r;
}

double shifted(double x, double shift) {
  const double y = x + shift;
  return y - std::floor(y);
}

using core::splitmix64;

}  // namespace

double capped_lognormal_mean(double mu, double sigma, double cap) {
  if (sigma <= 0.0) return std::min(std::exp(mu), cap);
  const double lc = std::log(cap);
  return std::exp(mu + sigma * sigma / 2) * phi((lc - mu - sigma * sigma) / sigma) +
         cap * (1 - phi((lc - mu) / sigma));
}

PresetModel fit_preset(const ClusterPreset& p) {
  PresetModel m;
  m.runtime_log_median = std::log(p.runtime_median_s);
  // The capped mean rises with sigma from the median, peaks, then falls towards cap / 2: take the smallest
  // sigma that reaches the target (scan to bracket, then bisect).
  const double target = p.runtime_mean_s;
  double lo = 1e-6, hi = 0.0;
  for (double s = 0.01; s <= 10.0; s += 0.01) {
    if (capped_lognormal_mean(m.runtime_log_median, s, p.runtime_max_s) >= target) {
      hi = s;
      break;
    }
    lo = s;
  }
  if (hi == 0.0)
    throw std::invalid_argument(
        fmt::format("preset {}: no lognormal with median {} s and cap {} s has mean {} s", p.name,
                    p.runtime_median_s, p.runtime_max_s, target));
  for (int k = 0; k < 100; ++k) {
    const double mid = 0.5 * (lo + hi);
    (capped_lognormal_mean(m.runtime_log_median, mid, p.runtime_max_s) < target ? lo : hi) = mid;
  }
  m.runtime_sigma = 0.5 * (lo + hi);

  // GPUs: fixed part plus a geometric tail over powers of two, ratio solved for the mean.
  double fixed_p = 0.0, fixed_mean = 0.0;
  for (const auto& [v, q] : p.gpus_fixed) fixed_p += q, fixed_mean += v * q;
  std::vector<double> tail;
  for (double v = p.gpus_tail_from; v <= p.gpus_max; v *= 2) tail.push_back(v);
  std::vector<double> tail_w(tail.size(), 0.0);
  if (!tail.empty() && fixed_p < 1.0) {
    const double want = (p.gpus_mean - fixed_mean) / (1.0 - fixed_p);
    if (!(want > tail.front() && want < tail.back()))
      throw std::invalid_argument(fmt::format("preset {}: the GPU tail cannot have mean {}", p.name, want));
    auto tail_mean = [&](double r) {
      double num = 0, den = 0, w = 1;
      for (double v : tail) num += v * w, den += w, w *= r;
      return num / den;
    };
    double rlo = 1e-9, rhi = 1e3;
    for (int k = 0; k < 200; ++k) {
      const double mid = std::sqrt(rlo * rhi);
      (tail_mean(mid) < want ? rlo : rhi) = mid;
    }
    const double r = std::sqrt(rlo * rhi);
    double den = 0, w = 1;
    for (std::size_t i = 0; i < tail.size(); ++i) tail_w[i] = w, den += w, w *= r;
    for (auto& x : tail_w) x *= (1.0 - fixed_p) / den;
  }
  std::vector<std::pair<double, double>> all(p.gpus_fixed.begin(), p.gpus_fixed.end());
  for (std::size_t i = 0; i < tail.size(); ++i) all.emplace_back(tail[i], tail_w[i]);
  std::sort(all.begin(), all.end());
  double acc = 0.0;
  for (const auto& [v, q] : all) {
    acc += q;
    m.gpu_values.push_back(v);
    m.gpu_cdf.push_back(acc);
  }
  m.gpu_cdf.back() = 1.0;
  return m;
}

std::vector<JobSpec> generate_preset_jobs(const ClusterPreset& preset, const PresetArrivals& arrivals,
                                          std::uint64_t seed, std::int64_t first_id,
                                          const InferenceConfig& inference, const RuntimeEstimate& estimate,
                                          const std::atomic<bool>* stop) {
  std::vector<JobSpec> jobs;
  if (!(arrivals.mean_rate_per_s > 0.0) || !(arrivals.end_s > arrivals.start_s)) return jobs;
  const PresetModel model = fit_preset(preset);
  Random rng(seed);
  const double shift2 = rng.uniform(), shift3 = rng.uniform(), shift5 = rng.uniform();
  const double share_total = preset.complete_share + preset.cancel_share + preset.fail_share;
  double t = arrivals.start_s;
  for (std::uint64_t i = 1;; ++i) {
    // Matching a run time predicts the job: poll more often than for a bare draw.
    if (i % 4096 == 0) core::throw_if_stopped(stop);
    t += rng.exponential(arrivals.mean_rate_per_s);
    if (t >= arrivals.end_s) break;
    const double u_stop = rng.uniform();
    const double u_rt = std::clamp(shifted(radical_inverse(2, i), shift2), 1e-12, 1.0 - 1e-12);
    const double u_gpu = shifted(radical_inverse(3, i), shift3);
    const double u_status = shifted(radical_inverse(5, i), shift5) * share_total;

    JobSpec job;
    job.id = first_id + static_cast<std::int64_t>(i - 1);
    job.submit_s = t;
    const double d =
        std::min(std::exp(model.runtime_log_median + model.runtime_sigma * normal_quantile(u_rt)),
                 preset.runtime_max_s);
    const auto gi = static_cast<std::size_t>(
        std::lower_bound(model.gpu_cdf.begin(), model.gpu_cdf.end(), u_gpu) - model.gpu_cdf.begin());
    const double gpus = model.gpu_values[std::min(gi, model.gpu_values.size() - 1)];
    job.n_gpus = static_cast<std::uint32_t>(std::max(1.0, std::ceil(gpus)));
    job.gpu_fraction = std::min(1.0, gpus / job.n_gpus);
    if (arrivals.max_gpus > 0 && job.n_gpus > arrivals.max_gpus) {
      job.n_gpus = arrivals.max_gpus;
      job.inferred |= inferred::n_gpus;
    }
    job.status = u_status < preset.complete_share                         ? JobStatus::completed
                 : u_status < preset.complete_share + preset.cancel_share ? JobStatus::cancelled
                                                                          : JobStatus::failed;
    job.inferred |= inferred::status;
    job.recorded_runtime_s = d;
    double target = d;
    if (job.status != JobStatus::completed) {
      target = d / (0.1 + 0.8 * u_stop);  // it meant to run longer and was stopped at d
      job.limit_s = d;
    }
    Random job_rng(splitmix64(seed ^ splitmix64(i)));
    infer_missing(job,
                  inferred::job_class | inferred::model | inferred::batch_size | inferred::dataset_samples |
                      inferred::epochs | inferred::precision,
                  inference, job_rng);
    if (estimate) (void)match_runtime(job, target, estimate, inference);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace fleetwatt::jobs
