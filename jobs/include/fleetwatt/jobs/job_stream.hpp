// A scenario's workload drawn as the run goes: the generator's arrivals one at a time (the same random
// stream, in the same order, as generate_jobs), merged with the explicit jobs and the warm-up's arrivals in
// submit order. The jobs are exactly build_workload's, in its order, but a run holds one arrival ahead of
// the clock instead of every job of its horizon.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "fleetwatt/jobs/job_source.hpp"
#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/jobs/workload_config.hpp"

namespace fleetwatt::jobs {

/// The generator's arrivals in (start_s, end_s), drawn one at a time: generate_jobs is this stream drained.
/// Its state is the generator's table, the random generator and the clock (a few kB), whatever the horizon.
class ArrivalStream {
 public:
  ArrivalStream(const GeneratorConfig& config, std::uint64_t seed, std::int64_t first_id);
  /// The next arrival, or none past end_s.
  [[nodiscard]] std::optional<JobSpec> next();

 private:
  GeneratorConfig config_;
  Random rng_;
  std::vector<double> mix_weights_;
  double peak_rate_ = 0.0;
  double t_ = 0.0;
  std::int64_t id_ = 0;
  bool done_ = false;
};

/// Whether a scenario's workload can be drawn as the run goes: generated and explicit jobs (a trace or a
/// preset is read and matched whole).
[[nodiscard]] bool streamable(const WorkloadConfig& workload) noexcept;

/// The workload of a streamable scenario (whose warmup_s is settled), in build_workload's order.
class ScenarioJobStream final : public JobSource {
 public:
  /// Counts the window's arrivals and lays down the warm-up's now (up to 10^8 draws: seconds), polling
  /// `stop` as it goes (raised: core::Interrupted).
  ScenarioJobStream(const WorkloadConfig& workload, std::uint64_t seed,
                    const std::atomic<bool>* stop = nullptr);
  /// The same with the workload's explicit jobs handed over in `explicit_jobs` (workload.jobs is not read):
  /// a run that takes its scenario's jobs streams them without a copy of the list.
  ScenarioJobStream(const WorkloadConfig& workload, std::vector<JobSpec> explicit_jobs, std::uint64_t seed,
                    const std::atomic<bool>* stop = nullptr);
  [[nodiscard]] std::optional<JobSpec> next() override;
  [[nodiscard]] bool any_job_smoothing() const override { return any_smoothing_; }
  /// Jobs in all (counted up front by drawing the arrivals once without keeping them).
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

 private:
  std::vector<JobSpec> fixed_;   ///< explicit jobs, stable-sorted by submit time
  std::vector<JobSpec> warmup_;  ///< the warm-up's arrivals (bounded by warmup_s)
  std::size_t next_fixed_ = 0, next_warmup_ = 0;
  std::optional<ArrivalStream> window_;
  std::optional<JobSpec> window_next_;  ///< the window's next arrival, drawn ahead
  bool any_smoothing_ = false;
  std::uint64_t size_ = 0;
};

}  // namespace fleetwatt::jobs
