// One scenario run into one result file: the engine, the HDF5 writer and the summary, put together in one
// place. `fleetwatt run` and the Python package (fleetwatt.run, policies written in Python, the Gym-style
// loop) both call it, so a run from Python writes the very file the command line writes.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fleetwatt/results/hdf5/result_writer.hpp"
#include "fleetwatt/results/metrics/grid_metrics.hpp"
#include "fleetwatt/results/metrics/power_quality.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/engine/run_summary.hpp"

namespace fleetwatt::runs {

struct RunToFileOptions {
  std::function<void(const sim::Progress&)> on_progress;  ///< progress lines (none when empty)
  const std::atomic<bool>* stop = nullptr;                ///< raised: the run throws sim::Interrupted
  std::string version;                                    ///< provenance: fleetwatt version and commit
  std::string git_commit;
  /// A scheduler built in code (a Python policy); null: the scenario's [scheduler] policy.
  std::unique_ptr<sim::Scheduler> scheduler;
  /// Called with the engine before it runs (observers of its power, ...).
  std::function<void(sim::Engine&)> before_run;
  /// Job-table rows appended to /jobs at a time as finished jobs stream out (the file is the same for any
  /// value; tests set small ones to cross block boundaries).
  std::size_t job_block_rows = results::kJobBlockRows;
};

/// What the printed summary needs of a finished run.
struct RunOutcome {
  sim::RunSummary summary;
  results::GridMetrics grid;
  results::PowerQuality quality;
  results::WallClock clock;
  std::vector<results::ServiceRecord> services;  ///< /services, as written
};

/// Builds the engine (every job predicted first: a bad job fails before any file exists), streams the run
/// into `out` (a temporary file renamed onto it at the end: an interrupted or failed run leaves nothing)
/// and writes the job table, fleet, summary and provenance. Moves the run's jobs into the engine.
[[nodiscard]] RunOutcome run_to_file(runs::PreparedRun& run, const std::filesystem::path& out,
                                     RunToFileOptions options);

}  // namespace fleetwatt::runs
