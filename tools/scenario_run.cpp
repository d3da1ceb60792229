// The body of `fleetwatt run` after the scenario is loaded: engine, result writer, commit.
#include "scenario_run.hpp"

#include <fmt/format.h>

#include "fleetwatt/results/result_writer.hpp"
#include "fleetwatt/results/summary_report.hpp"
#include "version.hpp"

namespace fleetwatt::tools {

std::string simulate_to_file(sim::PreparedRun& r, const std::filesystem::path& out,
                             const std::function<void(const sim::Progress&)>& progress,
                             const std::atomic<bool>* stop) {
  // The engine predicts every job before the writer exists, so a bad job fails before any file is made.
  const auto engine_ptr = sim::make_engine_taking_jobs(r);
  sim::Engine& engine = *engine_ptr;
  results::WriterLayout layout{r.setup.nodes,
                               r.setup.gpus_per_node,
                               r.scenario.output.facility_interval_s,
                               r.scenario.output.node_interval_s,
                               r.scenario.output.gpu_changes,
                               engine.cluster().uniform() ? 0 : engine.cluster().gpus(),
                               {r.scenario.output.start_unix_s, r.scenario.output.start_utc_offset_s},
                               r.scenario.output.start,
                               r.scenario.grid.system_peak_hours};
  results::ResultWriter writer(out, layout);
  engine.attach(&writer);
  engine.run(progress, 100000, stop);
  const bool groups = engine.layout().groups().size() > 1;
  writer.write_jobs(engine.jobs(), engine.cluster(), groups);
  if (groups) writer.write_fleet(engine.layout().groups());
  writer.write_summary(engine.summary());
  writer.write_provenance(
      {r.scenario.text, r.scenario.file.string(), r.scenario.seed, FLEETWATT_VERSION, FLEETWATT_GIT_COMMIT});
  writer.commit();
  return results::format_summary(engine.summary(), writer.grid_metrics(), layout.clock,
                                 writer.power_quality());
}

}  // namespace fleetwatt::tools
