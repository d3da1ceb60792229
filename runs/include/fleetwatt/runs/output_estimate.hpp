// How large a run's result file will be, known before the run: the facility series (seven datasets of one
// value per interval), the node series (one value per server per interval), the load-duration input held
// in memory, and the job table. GPU power changes (/gpus/changes) depend on the schedule and are not
// counted: the estimate is a floor, used to refuse runs that could not be written or read back. The memory
// the run holds is estimated alongside, for the memory limit checked before the run.
#pragma once

#include <cstdint>
#include <string>

#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/sim/fleet/job.hpp"

namespace fleetwatt::runs {

/// Memory per job a run holds: its JobSpec and the engine's Job (their heap parts, plans and GPU lists, are
/// small against these; measured: 674 MB for 278 k generated jobs, 2.4 kB each).
inline constexpr double kHeldJobBytes = static_cast<double>(sizeof(jobs::JobSpec) + sizeof(sim::Job));

struct OutputEstimate {
  std::uint64_t facility_rows = 0;  ///< facility intervals in [0, horizon)
  std::uint64_t node_samples = 0;   ///< node intervals in [0, horizon)
  std::uint64_t nodes = 0;          ///< servers of the fleet
  /// Jobs of the workload (warm-up included); a streamed run's are expected, not counted (drawing them
  /// would take as long again as the run's start).
  std::uint64_t jobs = 0;
  /// Jobs held in memory before the run starts: all of a listed workload, the warm-up's of a streamed one.
  std::uint64_t held_jobs = 0;
  double bytes = 0.0;  ///< the file's size without /gpus/changes, bytes
  /// The scenario key that dominates the size ("output.node_interval_s" or "output.facility_interval_s").
  std::string dominant_key;
  /// What the run holds in memory, bytes: the facility series kept for the load-duration curve, the
  /// power-quality spectrum's segment buffers, the held jobs, and the fleet's state with its interconnect.
  double memory_bytes = 0.0;
  double fleet_memory_bytes = 0.0;     ///< of which the fleet's state and its interconnect
  std::uint64_t spectrum_samples = 0;  ///< the power-quality segment's length (samples)
  /// The scenario key that drives the memory ("output.facility_interval_s", "workload" or "fleet.nodes").
  std::string memory_key;
};

[[nodiscard]] OutputEstimate estimate_output(const runs::PreparedRun& run);

/// Bounds the jobs a streamed run's engine may hold at once to what fits in `max_bytes` beside the memory
/// estimated above (sim::HeldJobsLimit): a queue that outgrows it is bad input at the arrival rate, raised
/// when the job that would pass it is drawn. A listed workload's jobs are all counted before the run
/// (estimate_output): no limit is set for it.
void limit_held_jobs(runs::PreparedRun& run, double max_bytes);

}  // namespace fleetwatt::runs
