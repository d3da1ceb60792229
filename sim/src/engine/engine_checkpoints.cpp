// Checkpoints in the engine: how long a valley lasts when the fabric writes the checkpoint or an
// asynchronous write runs beside the next steps, and the background write's start and end. Each returns
// the time it decides; the job's plan is never written into.
#include <algorithm>

#include "event_priorities.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/fleet/network_model.hpp"

namespace fleetwatt::sim {

Duration Engine::begin_checkpoint(JobIndex j) {
  Job& job = job_at(j);
  const auto& plan = job.plan;
  const bool last = job.epochs_done + 1 >= job.spec.epochs;
  if (plan.checkpoint_async) {
    // Asynchronous checkpoints: the GPUs wait for their copy to host memory (the plan's part), and for the
    // previous checkpoint's write if it is still going (torch and NeMo finish one before the next). The
    // last one's write ends the job: training finalises its checkpoint before it lets go of the GPUs.
    const double wait = job.write_end > queue_.now() ? (job.write_end - queue_.now()).seconds() : 0.0;
    double valley_s = std::max(plan[jobs::PartKind::checkpoint].s, wait);
    if (last) {
      end_background_write(j);
      valley_s += begin_checkpoint_write(job);
    }
    return Duration::from_seconds(valley_s);
  }
  if (network_) {
    // The checkpoint write is the valley's duration floor; a plan that states its write keeps its fixed
    // work beside the write the fabric gives.
    const double checkpoint_s = begin_checkpoint_write(job);
    const double part = plan[jobs::PartKind::checkpoint].s;
    return Duration::from_seconds(plan.checkpoint_bytes > 0.0
                                      ? plan.checkpoint_fixed_s() +
                                            std::max(plan.checkpoint_write_s, checkpoint_s)
                                      : std::max(part, checkpoint_s));
  }
  return job.epoch.valley;  // the plan's checkpoint
}

void Engine::end_checkpoint(JobIndex j) {
  Job& job = job_at(j);
  if (job.plan.checkpoint_async && job.epochs_done + 1 < job.spec.epochs) {
    begin_background_write(j);
  } else {
    end_checkpoint_write(job);
  }
}

void Engine::begin_background_write(JobIndex j) {
  Job& job = job_at(j);
  end_background_write(j);  // the previous one ended by now: the valley waited for it
  job.write_end = queue_.now() + Duration::from_seconds(begin_checkpoint_write(job));
  job.write_event = queue_.schedule_at(
      job.write_end, [this, j] { end_background_write(j); }, kPhasePriority);
}

void Engine::end_background_write(JobIndex j) {
  Job& job = job_at(j);
  if (!job.write_event) return;
  queue_.cancel(job.write_event);  // a no-op when it is the event running now
  job.write_event = 0;
  end_checkpoint_write(job);
}

double Engine::begin_checkpoint_write(const Job& job) {
  if (!network_) return job.plan.checkpoint_write_s;
  return change_network([&](NetworkModel& n) { return n.begin_checkpoint(job); });
}

void Engine::end_checkpoint_write(const Job& job) {
  if (network_) change_network([&](NetworkModel& n) { n.end_checkpoint(job); });
}

}  // namespace fleetwatt::sim
