// A job's record (job_record.hpp): read from the job, each figure that does not apply as NaN.
#include "fleetwatt/sim/fleet/job_record.hpp"

#include <limits>

namespace fleetwatt::sim {

JobRecord record_of(const Job& job) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool started = job.state == JobState::running || job.state == JobState::finished;
  JobRecord r{job.spec};
  r.gpus = job.gpus;
  r.gpu = job.gpu_type.preset;
  r.state = job.state;
  r.start_s = started ? job.start.seconds() : nan;
  r.end_s = job.state == JobState::finished ? job.end.seconds() : nan;
  r.epochs_done = job.epochs_done;
  r.peak_W = job.peak_W();
  r.peak_s = job.epoch.peak.seconds();
  r.valley_W = job.valley_W();
  r.valley_s = job.epoch.valley.seconds();
  r.energy_J = job.energy_J;
  r.paused_gpu_s = job.controls.paused_gpu_seconds;
  r.parts = job.parts;
  r.step_s = job.stepped ? job.wave.shape.step().seconds() : nan;
  if (job.smoothing_on) r.smoothing_J = job.smoothing_J;
  if (job.failures_on) r.failures = &job.failures;
  return r;
}

}  // namespace fleetwatt::sim
