// Run assembly: scenario + overrides -> setup, predictor at its band, workload; prepared run -> engine.
#include "fleetwatt/sim/run_assembly.hpp"

#include "fleetwatt/models/banded_predictor.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/sim/policy_registry.hpp"
#include "fleetwatt/workloads/job_stream.hpp"
#include "fleetwatt/workloads/replay.hpp"
#include "fleetwatt/workloads/scenario_loader.hpp"
#include "fleetwatt/workloads/warmup.hpp"

namespace fleetwatt::sim {

workloads::RuntimeEstimate runtime_estimate(const models::PowerPredictor& predictor,
                                            const models::GpuHardware& gpu) {
  // `gpu` is copied: the estimate outlives the setup it came from while the workload is built.
  return [&predictor, gpu](const workloads::JobSpec& j) {
    const auto p = j.phases ? *j.phases : predictor.predict(j, gpu);
    return p.epoch_s() * j.epochs;
  };
}

namespace {
/// prepare_run, with the job list built unless `stream` and the workload can be drawn as the run goes.
PreparedRun prepare(workloads::Scenario scenario, const RunOverrides& overrides, bool stream) {
  PreparedRun r;
  r.scenario = std::move(scenario);
  if (overrides.seed) r.scenario.seed = *overrides.seed;
  if (overrides.band) r.scenario.predictor.band = *overrides.band;
  r.setup = engine_setup(r.scenario);
  r.predictor = models::at_band(models::PredictorRegistry::with_builtins().make(r.scenario.predictor),
                                r.scenario.predictor.band);
  // The [scheduler] section is checked against the policies' declarations before any job is built.
  check_scheduler_config(r.scenario.scheduler);
  const auto estimate = runtime_estimate(*r.predictor, r.setup.gpu);
  // The warm-up, when the scenario leaves it out: long enough for generated jobs to fill the fleet.
  auto& workload = r.scenario.workload;
  if (!workload.warmup_s) {
    workload.warmup_s = workloads::default_warmup_s(workload, estimate);
    r.setup.warmup = Duration::from_seconds(*workload.warmup_s);
  }
  // Trace and preset jobs match their recorded run times to this predictor's estimate on the reference type;
  // the engine matches them again on the type each one starts on.
  if (stream && workloads::streamable(r.scenario)) {
    r.streamed = true;
    r.job_count = workloads::ScenarioJobStream(r.scenario).size();
    return r;
  }
  r.jobs = workloads::build_scenario_workload(r.scenario, estimate);
  r.job_count = r.jobs.size();
  return r;
}
}  // namespace

PreparedRun prepare_run(workloads::Scenario scenario, const RunOverrides& overrides) {
  return prepare(std::move(scenario), overrides, false);
}

PreparedRun prepare_streamed_run(workloads::Scenario scenario, const RunOverrides& overrides) {
  return prepare(std::move(scenario), overrides, true);
}

std::unique_ptr<workloads::JobSource> job_source(const PreparedRun& run) {
  if (run.streamed) return std::make_unique<workloads::ScenarioJobStream>(run.scenario);
  return std::make_unique<workloads::JobList>(run.jobs);
}

std::unique_ptr<workloads::JobSource> take_job_source(PreparedRun& run) {
  if (run.streamed) return std::make_unique<workloads::ScenarioJobStream>(run.scenario);
  return std::make_unique<workloads::JobList>(std::move(run.jobs));
}

PreparedRun prepare_run(const std::filesystem::path& scenario_file, const RunOverrides& overrides) {
  return prepare_run(workloads::load_scenario(scenario_file), overrides);
}

std::unique_ptr<Engine> make_engine_taking_jobs(PreparedRun& run) {
  return std::make_unique<Engine>(run.setup, take_job_source(run), *run.predictor,
                                  make_scheduler(run.scenario.scheduler),
                                  make_placement(run.scenario.scheduler));
}

std::unique_ptr<Engine> make_engine(const PreparedRun& run) {
  return make_engine(run, run.scenario.scheduler);
}

std::unique_ptr<Engine> make_engine(const PreparedRun& run, const workloads::SchedulerConfig& scheduler) {
  return make_engine(run, make_scheduler(scheduler), make_placement(scheduler));
}

std::unique_ptr<Engine> make_engine(const PreparedRun& run, std::unique_ptr<Scheduler> scheduler,
                                    std::unique_ptr<PlacementPolicy> placement) {
  return std::make_unique<Engine>(run.setup, job_source(run), *run.predictor, std::move(scheduler),
                                  std::move(placement));
}

}  // namespace fleetwatt::sim
