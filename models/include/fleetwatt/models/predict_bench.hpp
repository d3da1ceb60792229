// The predictor's speed workload (requirement: predicting 100,000 jobs on 10 GPU types stays under 2 s). One
// definition of the jobs, shared by `fleetwatt bench` and the Google Benchmark in models/bench, so that the
// figure of docs/development.md and the benchmark time the same thing: varied zoo models, batch sizes, image
// and sequence sizes and GPU counts, spread over 10 GPU presets, each predicted once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"

namespace fleetwatt::models {

/// Jobs and the GPU each is predicted on (gpus[gpu_of[i]] for jobs[i]).
struct PredictBenchWorkload {
  std::vector<GpuHardware> gpus;
  std::vector<JobSpec> jobs;
  std::vector<std::size_t> gpu_of;
};

/// `n_jobs` jobs drawn (seeded, so every run times the same set) from the zoo models, per-GPU batches
/// 8-64, 1-8 GPUs and the input sizes each model takes, round-robin over 10 presets with 24 GiB or more;
/// every job fits its GPU.
[[nodiscard]] PredictBenchWorkload predict_bench_workload(std::size_t n_jobs = 100'000,
                                                          std::uint64_t seed = 1);

/// One pass over the workload: plan() of every job.
struct PredictBenchResult {
  std::size_t jobs = 0;
  double seconds = 0.0;
  double energy_J = 0.0;  ///< sum of the epochs' per-GPU energies (keeps the work observable)
};

/// Predicts every job of `w` with `predictor`, timing the pass (wall clock).
[[nodiscard]] PredictBenchResult run_predict_bench(const PowerPredictor& predictor,
                                                   const PredictBenchWorkload& w);

}  // namespace fleetwatt::models
