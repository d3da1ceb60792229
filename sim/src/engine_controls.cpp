// The engine's controls: pausing, capping, node sleep and wake (see engine_controls.hpp).
#include "engine_controls.hpp"

#include <stdexcept>

#include "engine_failures.hpp"
#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/sim/network_model.hpp"

namespace fleetwatt::sim {

namespace {
// Owner of the GPUs of a sleeping or waking node: placement then sees them as taken.
constexpr JobIndex kNodeAsleep = kNoJob - 1;
}  // namespace

void Engine::Controls::recap(JobIndex j, double cap_W) {
  Job& job = e_.held_job(j);
  FLEETWATT_ASSERT(job.state == JobState::running, "recap: the job is not running");
  // The work left in the current phase is kept; only the pace at which it is done changes.
  e_.meter_.settle(e_.job_at(j), e_.queue_.now());
  e_.hold_steps(j);  // a step-level peak's segment clock goes on at the new pace from here
  const Duration before = phase_length(job, job.phase);
  job.power_cap_W = cap_W;
  const Duration after = phase_length(job, job.phase);
  if (before == after) {
    // Its segments above the cap still change (a step-level peak draws more than its mean at times).
    if (job.stepped && job.phase == JobPhase::peak && !job.paused) e_.draw_phase(j);
    return;
  }
  const double scale = after.seconds() / before.seconds();
  if (job.paused) {
    job.phase_left = Duration::from_seconds(job.phase_left.seconds() * scale);
    return;
  }
  job.phase_end =
      e_.queue_.now() + Duration::from_seconds((job.phase_end - e_.queue_.now()).seconds() * scale);
  e_.queue_.cancel(job.next_event);
  e_.schedule_phase_end(j);
  e_.draw_phase(j);
}

void Engine::Controls::pause(JobIndex j) {
  Job& job = e_.held_job(j);
  FLEETWATT_ASSERT(job.state == JobState::running && !job.paused, "pause: the job is not running");
  if (e_.failures_) e_.failures_->paused(j);  // a paused job cannot fail
  e_.meter_.settle(e_.job_at(j), e_.queue_.now());
  e_.hold_steps(j);
  job.phase_left = job.phase_end - e_.queue_.now();
  e_.queue_.cancel(job.next_event);
  job.next_event = 0;
  if (job.stop_event) {
    job.stop_left = job.stop_at - e_.queue_.now();
    e_.queue_.cancel(job.stop_event);
    job.stop_event = 0;
  }
  job.paused = true;
  job.phase_start = e_.queue_.now();  // the pause's start, for lost GPU time
  e_.meter_.draw(job, e_.queue_.now(), job.gpu_idle_W);
  if (e_.network_) {
    // A suspended job neither all-reduces nor reads: its flows leave the links to the others.
    const double before = e_.network_->power_W();
    e_.network_->job_paused(job);
    e_.network_changed(before);
  }
}

void Engine::Controls::resume(JobIndex j) {
  Job& job = e_.held_job(j);
  FLEETWATT_ASSERT(job.state == JobState::running && job.paused, "resume: the job is not paused");
  job.paused_gpu_seconds +=
      static_cast<double>(job.gpus.size()) * window_seconds(job.phase_start, e_.queue_.now());
  job.paused = false;
  job.phase_start = e_.queue_.now();
  e_.draw_phase(j);
  job.phase_end = e_.queue_.now() + job.phase_left;
  e_.schedule_phase_end(j);
  // A job paused while restarting after a failure gets its flows back when the restart ends, not now.
  if (e_.network_ && job.phase != JobPhase::restart) {
    const double before = e_.network_->power_W();
    e_.network_->job_resumed(job);
    e_.network_changed(before);
  }
  if (e_.failures_) e_.failures_->resumed(j);
  if (job.stop_left > Duration::zero()) {
    job.stop_at = e_.queue_.now() + job.stop_left;
    job.stop_left = Duration::zero();
    job.stop_event = e_.queue_.schedule_at(
        job.stop_at, [this, j] { e_.stop_job(j); }, kPhasePriority);
  }
}

void Engine::Controls::sleep_node(NodeIndex n, double sleep_W) {
  FLEETWATT_ASSERT(
      e_.node_power_.at(n) == NodePower::on && e_.cluster_.free_gpus(n) == e_.cluster_.gpus_on(n),
      "sleep_node: the node is busy or not powered");
  const auto gpus = e_.cluster_.free_gpus_of(n);
  e_.groups_.allocate(kNodeAsleep, gpus);
  e_.ledger_.set_gpu_power(e_.queue_.now(), gpus, 0.0);
  e_.ledger_.set_node_base_power(e_.queue_.now(), n, sleep_W);
  e_.node_power_[n] = NodePower::sleeping;
}

void Engine::Controls::wake_node(NodeIndex n, Duration latency, double wake_energy_J) {
  FLEETWATT_ASSERT(e_.node_power_.at(n) == NodePower::sleeping, "wake_node: the node is not asleep");
  e_.node_power_[n] = NodePower::waking;
  const double extra = latency > Duration::zero() ? wake_energy_J / latency.seconds() : 0.0;
  const FleetGroup& group = e_.layout_.groups()[e_.layout_.group_of_node(n)];
  e_.ledger_.set_node_base_power(e_.queue_.now(), n, group.node_base_W + extra);
  e_.queue_.schedule_in(
      latency,
      [this, n, &group] {
        const std::uint32_t g = e_.cluster_.gpus_on(n);
        std::vector<GpuIndex> gpus(g);
        for (std::uint32_t i = 0; i < g; ++i) gpus[i] = e_.cluster_.first_gpu(n) + i;
        e_.ledger_.set_node_base_power(e_.queue_.now(), n, group.node_base_W);
        e_.ledger_.set_gpu_power(e_.queue_.now(), gpus, group.gpu.idle_W);
        e_.groups_.release(kNodeAsleep, gpus);
        e_.node_power_[n] = NodePower::on;
        e_.request_schedule();
      },
      kPhasePriority);
}

void Engine::Controls::set_power_cap(JobIndex j, double cap_W) {
  Job& job = e_.held_job(j);
  if (job.state == JobState::running) return recap(j, cap_W);
  FLEETWATT_ASSERT(job.state == JobState::queued, "a power cap is set on a job that has ended");
  job.power_cap_W = cap_W;
}

}  // namespace fleetwatt::sim
