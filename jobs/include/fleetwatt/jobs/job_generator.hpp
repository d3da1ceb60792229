// Synthetic workloads: Poisson arrivals with a diurnal rate (sampled by thinning) and a weighted job mix.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "fleetwatt/core/interrupted.hpp"
#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/jobs/workload_config.hpp"

namespace fleetwatt::jobs {

/// Generated jobs in arrival order, ids starting at first_id. Deterministic for a given seed on any platform.
/// `stop` is polled as they are drawn (raised: core::Interrupted).
[[nodiscard]] std::vector<JobSpec> generate_jobs(const GeneratorConfig& config, std::uint64_t seed,
                                                 std::int64_t first_id,
                                                 const std::atomic<bool>* stop = nullptr);

/// The warm-up's arrivals: the same generator continued backwards in time from its start_s over warmup_s
/// (the same rate and day/night cycle, a stream of its own from the same seed), in arrival order with ids
/// from first_id; submit times are start_s - warmup_s <= t < start_s. `stop` is polled as they are drawn.
[[nodiscard]] std::vector<JobSpec> generate_warmup_jobs(const GeneratorConfig& config, std::uint64_t seed,
                                                        double warmup_s, std::int64_t first_id,
                                                        const std::atomic<bool>* stop = nullptr);

/// Seed offset of the warm-up's stream.
inline constexpr std::uint64_t kWarmupStream = 0x9e3779b97f4a7c15ULL;

/// The most arrivals a generator or preset may be expected to draw over its span and warm-up: far beyond any
/// fleet's (a year at 10,000 jobs an hour is 8.8e7), and the bound that keeps a rate such as 1e300 per hour
/// from filling memory with jobs before anything is simulated.
inline constexpr double kMaxExpectedArrivals = 1e8;

/// The generator's instantaneous arrival rate (jobs/s) at time t.
[[nodiscard]] double arrival_rate(const GeneratorConfig& config, double t_s);

/// Every job of a workload (drawn with `seed`): explicit ones, then generated ones (with the warm-up's, when
/// the workload has one), sorted by submit time (stable). `stop` is polled as they are drawn.
[[nodiscard]] std::vector<JobSpec> build_workload(const WorkloadConfig& workload, std::uint64_t seed,
                                                  const std::atomic<bool>* stop = nullptr);

}  // namespace fleetwatt::jobs
