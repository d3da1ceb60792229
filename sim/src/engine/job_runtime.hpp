// What the engine lends the pieces that act on its running jobs from outside the event loop, its controls
// (pause, resume, caps) and its failures (interruptions, restarts): the clock, the jobs it holds, each job's
// phase machinery, the job meter and the job's place on the network. They see nothing else of the engine,
// which implements this with an adapter of its own (engine_context.hpp).
#pragma once

#include <deque>

#include "fleetwatt/core/event_queue.hpp"
#include "fleetwatt/sim/fleet/job.hpp"
#include "fleetwatt/sim/power/job_meter.hpp"

namespace fleetwatt::sim {

class JobRuntime {
 public:
  virtual ~JobRuntime() = default;

  [[nodiscard]] virtual EventQueue& queue() = 0;
  /// The end of the run's window.
  [[nodiscard]] virtual Time horizon() const = 0;
  /// Whether job j is held (drawn and not yet handed to a job sink).
  [[nodiscard]] virtual bool holds(JobIndex j) const = 0;
  /// Job j; throws std::out_of_range unless it is held.
  [[nodiscard]] virtual Job& job(JobIndex j) = 0;
  /// Every job held, in job order: held_jobs()[k] is job first_held() + k.
  [[nodiscard]] virtual std::deque<Job>& held_jobs() = 0;
  [[nodiscard]] virtual JobIndex first_held() const = 0;
  /// Every change of a job's draw goes through it.
  [[nodiscard]] virtual JobMeter& meter() = 0;

  /// Stops a step-level peak's segment clock (a pause, a cap change, an interruption); true if it ran.
  virtual bool hold_steps(JobIndex j) = 0;
  /// Draws what the job's GPUs draw now in its current phase.
  virtual void draw_phase(JobIndex j) = 0;
  /// Schedules the end of the job's current phase, at job.phase_end.
  virtual void schedule_phase_end(JobIndex j) = 0;
  /// The job's next epoch begins now.
  virtual void enter_peak(JobIndex j) = 0;
  /// Ends the job now (its run-time limit struck).
  virtual void stop_job(JobIndex j) = 0;
  /// The job's flows leave the network while it is suspended, and come back (nothing without a
  /// [topology]); the network's power follows.
  virtual void leave_network(Job& job) = 0;
  virtual void rejoin_network(Job& job) = 0;
};

}  // namespace fleetwatt::sim
