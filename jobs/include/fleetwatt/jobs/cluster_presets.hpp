// Synthetic workloads calibrated to real GPU clusters. Each preset carries the published aggregates of one
// cluster (Hu et al., "Characterization of Large Language Model Development in the Datacenter", NSDI 2024,
// AcmeTrace data/cluster_summary.csv): median, mean and longest GPU-job run time, mean GPUs per job, and the
// shares of completed, cancelled and failed jobs. Generated jobs reproduce them:
//  - run time D ~ lognormal with the cluster's median, capped at its longest job; the spread sigma is solved
//    so that the capped mean equals the published mean;
//  - GPUs: a fixed share of single-GPU (or, for PAI, fractional) jobs and a geometric tail over powers of two
//    up to the cluster's largest job, its ratio solved for the published mean;
//  - status: drawn with the published shares. Completed jobs run their epochs to D; failed and cancelled
//    jobs were meant to run D / f (f uniform in [0.1, 0.9]) and are stopped at D (JobSpec::limit_s), drawing
//    power until then.
// Quantiles are taken from a randomly shifted Halton sequence (bases 2, 3, 5), so that a few thousand jobs
// already match heavy-tailed targets; arrivals are Poisson.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleetwatt/core/interrupted.hpp"
#include "fleetwatt/jobs/job_inference.hpp"
#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::jobs {

struct ClusterPreset {
  std::string name;  ///< "philly", "helios", "pai", "seren", "kalos"
  std::string description;
  double runtime_median_s = 0;  ///< med_run_time_gpu
  double runtime_mean_s = 0;    ///< avg_run_time_gpu
  double runtime_max_s = 0;     ///< max_run_time_gpu
  double gpus_mean = 0;         ///< avg_gpu_num (GPU share per job; fractional for PAI)
  std::uint32_t gpus_max = 1;   ///< max_gpu
  double complete_share = 1, cancel_share = 0, fail_share = 0;  ///< *_rate_gpu (PAI: not published)
  /// Fixed part of the GPU distribution: (GPUs per job, probability). Single-GPU jobs (or PAI's shared
  /// quarter and half GPUs) take more than half the jobs, which puts the published median there.
  std::vector<std::pair<double, double>> gpus_fixed;
  double gpus_tail_from = 2;  ///< the geometric tail covers powers of two from this to gpus_max
};

/// The built-in presets, in a stable order.
[[nodiscard]] const std::vector<ClusterPreset>& cluster_presets();
/// The preset of that name; a ConfigError listing the names otherwise.
[[nodiscard]] const ClusterPreset& cluster_preset(std::string_view name);

/// The fitted distributions of a preset.
struct PresetModel {
  double runtime_log_median = 0;   ///< ln of the median run time
  double runtime_sigma = 0;        ///< lognormal spread solved for the published capped mean
  std::vector<double> gpu_values;  ///< ascending GPUs-per-job values
  std::vector<double> gpu_cdf;     ///< cumulative probabilities, last = 1
};

/// Fits the run-time and GPU distributions of a preset (throws std::invalid_argument if infeasible).
[[nodiscard]] PresetModel fit_preset(const ClusterPreset& preset);

/// Expected value of min(X, cap) for X lognormal(mu, sigma) (closed form).
[[nodiscard]] double capped_lognormal_mean(double mu, double sigma, double cap);
/// The standard normal quantile (Acklam's rational approximation refined by one Halley step).
[[nodiscard]] double normal_quantile(double p);

/// Poisson arrivals at a constant rate over [start_s, end_s).
struct PresetArrivals {
  double mean_rate_per_s = 0.0;
  double start_s = 0.0;
  double end_s = 0.0;
  std::uint32_t max_gpus = 0;  ///< clip jobs to the fleet (flagged inferred::n_gpus); 0: no clip
};

/// Generated jobs in arrival order with ids from first_id. Model fields are inferred from `inference`; when
/// `estimate` is given, epochs (and dataset sizes) are matched so the predicted run time is D (completed
/// jobs) or D / f (stopped ones). recorded_runtime_s holds the drawn run time D. `stop` is polled as they
/// are drawn (raised: core::Interrupted).
[[nodiscard]] std::vector<JobSpec> generate_preset_jobs(const ClusterPreset& preset,
                                                        const PresetArrivals& arrivals, std::uint64_t seed,
                                                        std::int64_t first_id,
                                                        const InferenceConfig& inference,
                                                        const RuntimeEstimate& estimate,
                                                        const std::atomic<bool>* stop = nullptr);

}  // namespace fleetwatt::jobs
