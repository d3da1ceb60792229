// The engine's interruptions ([failures]): a running job on n GPUs fails at n x its rate per GPU-second of
// exposure (running epochs: not paused, not restarting). An interruption drops the whole job to idle for the
// restart delay, reloads its last checkpoint at the checkpoint power for the ramp (at least the job's
// checkpoint time), then redoes the epoch it was in: the work since the epoch's start is lost. Gaps between
// failures come from a stream of each job's own, derived from the scenario's seed and the job's id, so the
// arrival and prediction streams are untouched and runs without failures stay bit for bit as they were.
#pragma once

#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/engine/run_summary.hpp"
#include "job_runtime.hpp"

namespace fleetwatt::sim {

// It reaches the jobs through the engine's JobRuntime, nothing else of the engine.
class Failures {
 public:
  Failures(JobRuntime& jobs, const FailureSetup& setup);

  /// A job starts: its rate is fixed, its first gap drawn, its exposure begins.
  void job_started(JobIndex j);
  /// An epoch begins (enter_peak): the last checkpoint, the point an interruption goes back to.
  void epoch_begun(JobIndex j);
  /// A policy pauses or resumes the job: the exposure stops and resumes where it was.
  void paused(JobIndex j);
  void resumed(JobIndex j);
  /// The job ends (finished or stopped, restarting or not): its exposure ends, its next failure is dropped.
  void job_ended(JobIndex j);
  /// The restart stage in progress ends at job.phase_end (also after a pause during a restart).
  void schedule_restart_step(JobIndex j);
  /// A scripted interruption at t (Engine::interrupt_at).
  void interrupt_at(JobIndex j, Time t);
  /// At t, every job then running an epoch is interrupted (the power under the fleet is gone: a UPS ran
  /// out); `count` is raised by the jobs struck.
  void interrupt_running_at(Time t, std::uint64_t& count);
  /// At the horizon: exposure of the jobs still running; the run's rate into the summary.
  void close(Time horizon, RunSummary& summary);
  /// Adds a job's interruptions, exposure, lost work and restarts to the summary's totals (each job once, in
  /// job order: as it is dropped, or at the horizon).
  static void account(const Job& job, RunSummary& summary);

  /// The uniform draw k of the failure stream of (seed, job id), in [0, 1) with 53 bits.
  [[nodiscard]] static double stream_uniform(std::uint64_t seed, std::int64_t job_id, std::uint64_t k);

 private:
  /// The interruption itself; `random`: it came from the job's stream (a new gap is drawn).
  void strike(JobIndex j, bool random);
  /// End of the restart delay (the reload begins) or of the reload (the epoch starts again).
  void restart_step(JobIndex j);
  /// Exposure begins now: the next interruption is scheduled when it falls before the horizon.
  void expose(JobIndex j);
  /// Exposure stops now: what is left of the gap is kept.
  void cover(JobIndex j);
  /// The next gap of the job's stream, in seconds of exposure (infinite at rate 0).
  [[nodiscard]] double draw_gap_s(Job& job) const;

  JobRuntime& jobs_;
  FailureSetup setup_;
};

}  // namespace fleetwatt::sim
