// A run streamed into its result file (see run_to_file.hpp).
#include "fleetwatt/runs/run_to_file.hpp"

#include "fleetwatt/results/hdf5/result_writer.hpp"
#include "fleetwatt/runs/service_series.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"

namespace fleetwatt::runs {

using results::ResultWriter;
using results::WriterLayout;

RunOutcome run_to_file(runs::PreparedRun& r, const std::filesystem::path& out, RunToFileOptions o) {
  std::unique_ptr<sim::Engine> engine_ptr;
  if (o.scheduler) {
    // The scenario's placement stays: a policy in code chooses jobs, the configured placement their GPUs.
    engine_ptr =
        std::make_unique<sim::Engine>(r.setup, runs::take_job_source(r, o.stop), *r.predictor,
                                      std::move(o.scheduler), sim::make_placement(r.scenario.scheduler));
  } else {
    engine_ptr = runs::make_engine_taking_jobs(r, o.stop);
  }
  sim::Engine& engine = *engine_ptr;
  WriterLayout layout{r.setup.nodes,
                      r.setup.gpus_per_node,
                      r.scenario.output.facility_interval_s,
                      r.scenario.output.node_interval_s,
                      r.scenario.output.gpu_changes,
                      engine.cluster().uniform() ? 0 : engine.cluster().gpus(),
                      {r.scenario.output.start_unix_s, r.scenario.output.start_utc_offset_s},
                      r.scenario.output.start,
                      r.scenario.grid.system_peak_hours};
  ResultWriter writer(out, layout);
  engine.attach(&writer);
  // Finished jobs go to /jobs as the run goes and leave memory (the rest at the end, write_jobs).
  writer.stream_jobs(engine, o.job_block_rows);
  if (o.before_run) o.before_run(engine);
  engine.run(o.on_progress, 100000, o.stop);
  const bool groups = engine.layout().groups().size() > 1;
  writer.write_jobs(engine.jobs(), engine.cluster(), groups);
  if (groups) writer.write_fleet(engine.layout().groups());
  // Each service's series as the ledger drew it (its plan, moved by its controller when it absorbs).
  std::vector<results::ServiceRecord> services;
  for (std::size_t s = 0; s < r.services.size(); ++s) {
    const sim::ServiceOutcome drawn = engine.service_outcome(s);
    // An absorbing service's tokens came out as late as its work ran behind its plan: played again on that
    // clock, its latencies, SLO and completions are what its requests saw.
    results::ServiceRecord record =
        drawn.lag_s.empty()
            ? r.services[s].record
            : play_scenario_service(r.scenario.services[s].request, r.scenario.services[s].name, drawn.lag_s)
                  .record;
    record.power_W = drawn.power_W;
    record.energy_J = drawn.energy_J;
    record.absorbing = r.setup.services[s].absorb.enabled;
    record.absorb_mean_lag_s = drawn.mean_lag_s;
    record.absorb_max_lag_s = drawn.max_lag_s;
    record.absorb_bank_J = drawn.bank_J;
    record.absorb_lag_s = drawn.lag_s;
    services.push_back(std::move(record));
  }
  writer.write_services(services);
  writer.write_summary(engine.summary());
  writer.write_provenance(
      {r.scenario.text, r.scenario.file.string(), r.scenario.seed, o.version, o.git_commit});
  writer.commit();
  return {engine.summary(), writer.grid_metrics(), writer.power_quality(), layout.clock, std::move(services)};
}

}  // namespace fleetwatt::runs
