// The default warm-up ([workload] warmup_s absent): how long a generated workload must run before the
// window [0, horizon) opens for the fleet to be at its steady occupancy rather than empty at midnight.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "fleetwatt/core/interrupted.hpp"
#include "fleetwatt/jobs/job_inference.hpp"
#include "fleetwatt/jobs/workload_config.hpp"

namespace fleetwatt::jobs {

/// How many times the longest generated run time the default warm-up lasts (before rounding up to hours).
inline constexpr double kWarmupRuntimes = 2.0;

/// The longest run time (s) a generator's mix can draw: each entry at its most epochs and largest dataset,
/// for each of its GPU counts, as `estimate` predicts it (0 without a mix).
[[nodiscard]] double longest_generated_runtime_s(const GeneratorConfig& generator,
                                                 const RuntimeEstimate& estimate);

/// The default warmup_s: kWarmupRuntimes x the longest generated run time, rounded up to whole hours, for a
/// [workload.generator] that starts with the window (start_s = 0); 0 for every other workload (explicit
/// jobs, jobs CSV, traces, presets), whose jobs have their own times. With warmup_arrivals = "periodic" it is
/// rounded up to whole days instead of whole hours.
[[nodiscard]] double default_warmup_s(const WorkloadConfig& workload, const RuntimeEstimate& estimate);

/// The most copies of the window a periodic warm-up may lay down (warmup_s / horizon_s, rounded up): a day's
/// warm-up repeats a window of 0.1 s; beyond, the copies alone would take minutes to walk.
inline constexpr double kMaxWarmupCopies = 1e6;

/// The warm-up's arrivals under `warmup_arrivals = "periodic"`: the window's own jobs (submit times in
/// [0, period_s)) repeated before it, shifted back by period_s, 2 period_s, ... as far as -warmup_s, so the
/// fleet at 0 is the one the window's own arrivals leave at its end (a typical day that tiles). In submit
/// order, ids from first_id; a deferrable job's deadline moves with it. `stop` is polled once per copy.
[[nodiscard]] std::vector<JobSpec> periodic_warmup_jobs(const std::vector<JobSpec>& window, double period_s,
                                                        double warmup_s, std::int64_t first_id,
                                                        const std::atomic<bool>* stop = nullptr);

}  // namespace fleetwatt::jobs
