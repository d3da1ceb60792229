// How large a run's result file will be, known before the run: the facility series (seven datasets of one
// value per interval), the node series (one value per server per interval), the load-duration input held
// in memory, and the job table. GPU power changes (/gpus/changes) depend on the schedule and are not
// counted: the estimate is a floor, used to refuse runs that could not be written or read back. The memory
// the run holds is estimated alongside, for the memory limit checked before the run.
#pragma once

#include <cstdint>
#include <string>

#include "fleetwatt/runs/run_assembly.hpp"

namespace fleetwatt::runs {

struct OutputEstimate {
  std::uint64_t facility_rows = 0;  ///< facility intervals in [0, horizon)
  std::uint64_t node_samples = 0;   ///< node intervals in [0, horizon)
  std::uint64_t nodes = 0;          ///< servers of the fleet
  std::uint64_t jobs = 0;           ///< jobs of the workload (warm-up included)
  double bytes = 0.0;               ///< the file's size without /gpus/changes, bytes
  /// The scenario key that dominates the size ("output.node_interval_s" or "output.facility_interval_s").
  std::string dominant_key;
  /// What the run holds in memory, bytes: the facility series kept for the load-duration curve, the
  /// power-quality spectrum's segment buffers, and the job list of a run that holds it whole.
  double memory_bytes = 0.0;
  std::uint64_t spectrum_samples = 0;  ///< the power-quality segment's length (samples)
  /// The scenario key that drives the memory ("output.facility_interval_s" or "workload").
  std::string memory_key;
};

[[nodiscard]] OutputEstimate estimate_output(const runs::PreparedRun& run);

}  // namespace fleetwatt::runs
