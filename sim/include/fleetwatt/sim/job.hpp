// A job as the engine runs it: its spec, its predicted phases, and its life (arrival -> queued -> running
// epochs of peak then valley -> finished).
#pragma once

#include <cstdint>

#include "fleetwatt/sim/cluster.hpp"
#include "fleetwatt/sim/event_queue.hpp"
#include "fleetwatt/sim/time.hpp"
#include "fleetwatt/workloads/job_spec.hpp"

namespace fleetwatt::sim {

enum class JobState { pending, queued, running, finished };
enum class JobPhase { none, peak, valley };

[[nodiscard]] const char* to_string(JobState s) noexcept;

struct Job {
  workloads::JobSpec spec;
  workloads::PhaseProfile profile;  ///< per-GPU, per epoch, as simulated
  Duration peak;                    ///< profile durations on the integer clock
  Duration valley;

  JobState state = JobState::pending;
  JobPhase phase = JobPhase::none;
  Time submit;
  Time start;
  Time end;
  Time phase_start;
  Placement gpus;
  std::uint32_t epochs_done = 0;
  double energy_J = 0.0;  ///< GPU energy of this job so far (all its GPUs)
  EventId next_event = 0;

  // Where the time and GPU energy went (all the job's GPUs for energy): compute in peak phases, exposed
  // gradient communication, exposed I/O (data loading in peak phases, checkpoint writes in valleys).
  double compute_s = 0.0, comm_s = 0.0, io_s = 0.0;
  double compute_J = 0.0, comm_J = 0.0, io_J = 0.0;

  /// Predicted run time on an idle fleet: epochs * (peak + valley).
  [[nodiscard]] Duration predicted_runtime() const { return (peak + valley) * spec.epochs; }
};

}  // namespace fleetwatt::sim
