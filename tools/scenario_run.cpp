// The body of `fleetwatt run` after the scenario is loaded, for the command line (run, sweep members): the
// shared runs::run_to_file (also Python's fleetwatt.run) with this build's provenance, and the summary
// as `fleetwatt run` prints it.
#include "scenario_run.hpp"

#include "fleetwatt/results/metrics/summary_report.hpp"
#include "fleetwatt/runs/run_to_file.hpp"
#include "fleetwatt/runs/service_series.hpp"
#include "version.hpp"

namespace fleetwatt::tools {

std::string simulate_to_file(runs::PreparedRun& r, const std::filesystem::path& out,
                             const std::function<void(const sim::Progress&)>& progress,
                             const std::atomic<bool>* stop) {
  runs::RunToFileOptions options;
  options.on_progress = progress;
  options.stop = stop;
  options.version = FLEETWATT_VERSION;
  options.git_commit = FLEETWATT_GIT_COMMIT;
  const runs::RunOutcome done = runs::run_to_file(r, out, std::move(options));
  std::string text = results::format_summary(done.summary, done.grid, done.clock, done.quality);
  for (const auto& s : done.services) text += runs::service_summary_text(s);
  return text;
}

}  // namespace fleetwatt::tools
