// Turning a scenario into a run: the one place where overrides, the engine setup, the predictor at its band
// and the workload (trace and preset jobs matched to the predictor's run time) are put together, and the
// engine built from them. The command line (run, bench, compare), the policy comparison and the tests all
// call it, so what a test simulates is what `fleetwatt run` simulates.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "fleetwatt/jobs/job_inference.hpp"
#include "fleetwatt/jobs/job_source.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/runs/scenario.hpp"
#include "fleetwatt/runs/service_series.hpp"
#include "fleetwatt/sim/engine/engine.hpp"

namespace fleetwatt::runs {

/// What bounds the preparation of a run: its stop flag and the memory its held jobs may take.
struct PrepareLimits {
  /// Polled as the jobs are drawn, matched and checked (raised: core::Interrupted).
  const std::atomic<bool>* stop = nullptr;
  /// The memory a run's job list (or a streamed run's warm-up and queue) may take, bytes, checked against
  /// the expected jobs before any is drawn; 0: this machine's physical memory.
  double max_memory_bytes = 0.0;
};

/// What the command line may change in a scenario before it runs.
struct RunOverrides {
  std::optional<std::uint64_t> seed;  ///< --seed: replaces the scenario's seed
  std::optional<models::Band> band;   ///< --band: replaces the scenario's [predictor] band
};

/// Everything one run needs. An engine built from it refers to `predictor`: keep the run alive as long.
struct PreparedRun {
  runs::Scenario scenario;  ///< with the overrides applied
  sim::EngineSetup setup;
  std::unique_ptr<models::PowerPredictor> predictor;  ///< the registry's, at the scenario's band
  std::vector<jobs::JobSpec> jobs;                    ///< every job; empty when `streamed`
  /// The jobs are drawn as the run goes (prepare_streamed_run): every engine made from the run draws them
  /// afresh from the scenario (jobs/job_stream.hpp), the same jobs each time.
  bool streamed = false;
  /// Jobs in all: listed, or expected for a streamed run (the arrivals' mean, warm-up included: counting
  /// them would mean drawing them once more before the run).
  std::uint64_t job_count = 0;
  /// Jobs held before a run starts: a streamed run's warm-up arrivals (expected), laid down up front.
  std::uint64_t held_job_count = 0;
  /// [[workload.service]]: each service played over the window before the engine starts (the engine takes
  /// its power as setup.services; the result file its record).
  std::vector<PlayedService> services;
};

/// A job's run time under `predictor` on `gpu`: its explicit phases or the prediction, times its epochs.
/// Trace and preset jobs are matched to their recorded run times with it.
[[nodiscard]] jobs::RuntimeEstimate runtime_estimate(const models::PowerPredictor& predictor,
                                                     const models::GpuHardware& gpu);

/// Applies the overrides, then builds the setup, the predictor and every job of the scenario (trace and
/// preset jobs matched on the reference GPU type, the first group's), each checked as the engine will check
/// it, within `limits`.
[[nodiscard]] PreparedRun prepare_run(runs::Scenario scenario, const RunOverrides& overrides = {},
                                      const PrepareLimits& limits = {});
/// The same for a scenario file.
[[nodiscard]] PreparedRun prepare_run(const std::filesystem::path& scenario_file,
                                      const RunOverrides& overrides = {});
/// As prepare_run, but a workload of generated and explicit jobs is not built: engines draw it as they run,
/// so memory follows the running and queued jobs, not the horizon's (a trace or preset is built as above).
/// A bad generated job then fails when it is drawn, during the run.
[[nodiscard]] PreparedRun prepare_streamed_run(runs::Scenario scenario, const RunOverrides& overrides = {},
                                               const PrepareLimits& limits = {});

/// The run's jobs as an engine takes them: a fresh stream of a streamed run, else its list (copied, or moved
/// out of the run with `take`, which also moves a streamed run's explicit jobs, scenario.workload.jobs, into
/// its stream). A stream counts its arrivals and lays down its warm-up as it is made,
/// polling `stop` (raised: core::Interrupted).
[[nodiscard]] std::unique_ptr<jobs::JobSource> job_source(const PreparedRun& run,
                                                          const std::atomic<bool>* stop = nullptr);
[[nodiscard]] std::unique_ptr<jobs::JobSource> take_job_source(PreparedRun& run,
                                                               const std::atomic<bool>* stop = nullptr);

/// The engine of a prepared run (a copy of its jobs), with the scenario's scheduler and placement.
[[nodiscard]] std::unique_ptr<sim::Engine> make_engine(const PreparedRun& run);
/// The same, moving the run's jobs into the engine (run.jobs, and a streamed run's scenario.workload.jobs,
/// are left empty): a run simulated once need not hold its workload twice. `stop` as job_source's.
[[nodiscard]] std::unique_ptr<sim::Engine> make_engine_taking_jobs(PreparedRun& run,
                                                                   const std::atomic<bool>* stop = nullptr);
/// The same with another [scheduler] configuration (a policy comparison runs each policy this way).
[[nodiscard]] std::unique_ptr<sim::Engine> make_engine(const PreparedRun& run,
                                                       const sim::SchedulerConfig& scheduler);
/// The same with policy objects built in code (tests of a policy's own parameters).
[[nodiscard]] std::unique_ptr<sim::Engine> make_engine(const PreparedRun& run,
                                                       std::unique_ptr<sim::Scheduler> scheduler,
                                                       std::unique_ptr<sim::PlacementPolicy> placement);

}  // namespace fleetwatt::runs
