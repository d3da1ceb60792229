// How large a run's result file will be, known before the run: the facility series (seven datasets of one
// value per interval), the node series (one value per server per interval), the load-duration input held
// in memory, and the job table. GPU power changes (/gpus/changes) depend on the schedule and are not
// counted: the estimate is a floor, used to refuse runs that could not be written or read back.
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
};

[[nodiscard]] OutputEstimate estimate_output(const runs::PreparedRun& run);

}  // namespace fleetwatt::runs
