// Names of job states for tables and messages; a plan's peak parts, its epoch as it runs, and a phase's
// power and length under the job's cap.
#include "fleetwatt/sim/fleet/job.hpp"

#include <algorithm>

#include "fleetwatt/models/hardware/clock_model.hpp"

namespace fleetwatt::sim {

const char* to_string(JobState s) noexcept {
  switch (s) {
    case JobState::pending:
      return "pending";
    case JobState::queued:
      return "queued";
    case JobState::running:
      return "running";
    case JobState::finished:
      return "finished";
  }
  return "?";
}

PeakSplit PeakSplit::of(const jobs::EpochPlan& plan) noexcept {
  using jobs::PartKind;
  PeakSplit s;
  s.compute_s = plan[PartKind::compute].s, s.compute_W = plan[PartKind::compute].W;
  s.comm_s = plan[PartKind::comm].s, s.comm_W = plan[PartKind::comm].W;
  s.io_s = plan[PartKind::io].s, s.io_W = plan[PartKind::io].W;
  s.bubble_s = plan.bubble.s, s.bubble_W = plan.bubble.W;
  s.comm_by_group = plan.comm_by_group;
  return s;
}

EpochRun EpochRun::of(const jobs::EpochPlan& plan) {
  EpochRun e;
  e.set_parts(PeakSplit::of(plan));
  e.peak = Duration::from_seconds(e.parts().duration_s());
  e.valley = Duration::from_seconds(plan[jobs::PartKind::checkpoint].s);
  return e;
}

double phase_power(const Job& job, JobPhase phase) {
  // [failures]: idle through the restart delay; the reload that follows draws the checkpoint (valley) power.
  if (phase == JobPhase::restart && job.failures.stage == JobFailures::Stage::delay)
    return job.gpu_type.idle_W;
  // A step-level job's start-up (model load, warm-up) draws at its checkpoint level, near the floor.
  const double w = phase == JobPhase::peak ? job.peak_W() : job.valley_W();
  return job.controls.power_cap_W > 0.0 ? std::min(w, job.controls.power_cap_W) : w;
}

double phase_stretch(const Job& job, JobPhase phase) {
  if (phase == JobPhase::restart) return 1.0;  // restart times are fixed, caps or not
  // The one clock model (models/hardware/clock_model.hpp) says how much a cap stretches the phase; a
  // step-level peak runs at the pace of its compute, whose clocks the cap lowers (the waits follow the
  // compute).
  const double w = phase != JobPhase::peak ? job.valley_W()
                   : job.stepped           ? job.wave.shape.compute_W
                                           : job.peak_W();
  return models::clock_model().stretch(w, job.controls.power_cap_W, job.gpu_type.tdp_W);
}

Duration phase_length(const Job& job, JobPhase phase) {
  const Duration d = phase == JobPhase::peak      ? job.epoch.peak
                     : phase == JobPhase::startup ? job.startup
                                                  : job.epoch.valley;
  const double k = phase_stretch(job, phase);
  return k == 1.0 ? d : Duration::from_seconds(d.seconds() * k);
}

}  // namespace fleetwatt::sim
