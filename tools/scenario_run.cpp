// The body of `fleetwatt run` after the scenario is loaded, for the command line (run, sweep members): the
// shared results::run_to_file (also Python's fleetwatt.run) with this build's provenance, and the summary
// as `fleetwatt run` prints it.
#include "scenario_run.hpp"

#include "fleetwatt/results/run_to_file.hpp"
#include "fleetwatt/results/summary_report.hpp"
#include "version.hpp"

namespace fleetwatt::tools {

std::string simulate_to_file(sim::PreparedRun& r, const std::filesystem::path& out,
                             const std::function<void(const sim::Progress&)>& progress,
                             const std::atomic<bool>* stop) {
  results::RunToFileOptions options;
  options.on_progress = progress;
  options.stop = stop;
  options.version = FLEETWATT_VERSION;
  options.git_commit = FLEETWATT_GIT_COMMIT;
  const results::RunOutcome done = results::run_to_file(r, out, std::move(options));
  return results::format_summary(done.summary, done.grid, done.clock, done.quality);
}

}  // namespace fleetwatt::tools
