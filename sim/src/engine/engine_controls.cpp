// The engine's controls: pausing, capping, node sleep and wake (see engine_controls.hpp).
#include "engine_controls.hpp"

#include <stdexcept>

#include "engine_failures.hpp"
#include "event_priorities.hpp"
#include "fleetwatt/core/assert.hpp"

namespace fleetwatt::sim {

namespace {
// Owner of the GPUs of a sleeping or waking node: placement then sees them as taken.
constexpr JobIndex kNodeAsleep = kNoJob - 1;
}  // namespace

void Controls::recap(JobIndex j, double cap_W) {
  Job& job = jobs_.job(j);
  FLEETWATT_ASSERT(job.state == JobState::running, "recap: the job is not running");
  // The work left in the current phase is kept; only the pace at which it is done changes.
  jobs_.meter().settle(jobs_.job(j), jobs_.queue().now());
  jobs_.hold_steps(j);  // a step-level peak's segment clock goes on at the new pace from here
  const Duration before = phase_length(job, job.phase);
  job.controls.power_cap_W = cap_W;
  const Duration after = phase_length(job, job.phase);
  if (before == after) {
    // Its segments above the cap still change (a step-level peak draws more than its mean at times).
    if (job.stepped && job.phase == JobPhase::peak && !job.controls.paused) jobs_.draw_phase(j);
    return;
  }
  const double scale = after.seconds() / before.seconds();
  if (job.controls.paused) {
    job.controls.phase_left = Duration::from_seconds(job.controls.phase_left.seconds() * scale);
    return;
  }
  job.phase_end =
      jobs_.queue().now() + Duration::from_seconds((job.phase_end - jobs_.queue().now()).seconds() * scale);
  jobs_.queue().cancel(job.next_event);
  jobs_.schedule_phase_end(j);
  jobs_.draw_phase(j);
}

void Controls::pause(JobIndex j) {
  Job& job = jobs_.job(j);
  FLEETWATT_ASSERT(job.state == JobState::running && !job.controls.paused, "pause: the job is not running");
  if (failures_) failures_->paused(j);  // a paused job cannot fail
  jobs_.meter().settle(jobs_.job(j), jobs_.queue().now());
  jobs_.hold_steps(j);
  job.controls.phase_left = job.phase_end - jobs_.queue().now();
  jobs_.queue().cancel(job.next_event);
  job.next_event = 0;
  if (job.controls.stop_event) {
    job.controls.stop_left = job.controls.stop_at - jobs_.queue().now();
    jobs_.queue().cancel(job.controls.stop_event);
    job.controls.stop_event = 0;
  }
  job.controls.paused = true;
  job.phase_start = jobs_.queue().now();  // the pause's start, for lost GPU time
  jobs_.meter().draw(job, jobs_.queue().now(), job.gpu_type.idle_W);
  // A suspended job neither all-reduces nor reads: its flows leave the links to the others.
  jobs_.leave_network(job);
}

void Controls::resume(JobIndex j) {
  Job& job = jobs_.job(j);
  FLEETWATT_ASSERT(job.state == JobState::running && job.controls.paused, "resume: the job is not paused");
  job.controls.paused_gpu_seconds +=
      static_cast<double>(job.gpus.size()) * window_seconds(job.phase_start, jobs_.queue().now());
  job.controls.paused = false;
  job.phase_start = jobs_.queue().now();
  jobs_.draw_phase(j);
  job.phase_end = jobs_.queue().now() + job.controls.phase_left;
  jobs_.schedule_phase_end(j);
  // A job paused while restarting after a failure gets its flows back when the restart ends, not now.
  if (job.phase != JobPhase::restart) jobs_.rejoin_network(job);
  if (failures_) failures_->resumed(j);
  if (job.controls.stop_left > Duration::zero()) {
    job.controls.stop_at = jobs_.queue().now() + job.controls.stop_left;
    job.controls.stop_left = Duration::zero();
    job.controls.stop_event = jobs_.queue().schedule_at(
        job.controls.stop_at, [this, j] { jobs_.stop_job(j); }, kPhasePriority);
  }
}

void Controls::sleep_node(NodeIndex n, double sleep_W) {
  FLEETWATT_ASSERT(
      nodes_.power.at(n) == NodePower::on && nodes_.cluster.free_gpus(n) == nodes_.cluster.gpus_on(n),
      "sleep_node: the node is busy or not powered");
  const auto gpus = nodes_.cluster.free_gpus_of(n);
  nodes_.groups.allocate(kNodeAsleep, gpus);
  const double idle_W = nodes_.layout.groups()[nodes_.layout.group_of_node(n)].gpu.idle_W;
  nodes_.ledger.change_gpu_power(jobs_.queue().now(), gpus, {}, idle_W, 0.0);  // free GPUs idle
  nodes_.ledger.set_node_base_power(jobs_.queue().now(), n, sleep_W);
  nodes_.power[n] = NodePower::sleeping;
}

void Controls::wake_node(NodeIndex n, Duration latency, double wake_energy_J) {
  FLEETWATT_ASSERT(nodes_.power.at(n) == NodePower::sleeping, "wake_node: the node is not asleep");
  nodes_.power[n] = NodePower::waking;
  const double extra = latency > Duration::zero() ? wake_energy_J / latency.seconds() : 0.0;
  const FleetGroup& group = nodes_.layout.groups()[nodes_.layout.group_of_node(n)];
  nodes_.ledger.set_node_base_power(jobs_.queue().now(), n, group.node_base_W + extra);
  jobs_.queue().schedule_in(
      latency,
      [this, n, &group] {
        const std::uint32_t g = nodes_.cluster.gpus_on(n);
        std::vector<GpuIndex> gpus(g);
        for (std::uint32_t i = 0; i < g; ++i) gpus[i] = nodes_.cluster.first_gpu(n) + i;
        nodes_.ledger.set_node_base_power(jobs_.queue().now(), n, group.node_base_W);
        nodes_.ledger.change_gpu_power(jobs_.queue().now(), gpus, {}, 0.0, group.gpu.idle_W);
        nodes_.groups.release(kNodeAsleep, gpus);
        nodes_.power[n] = NodePower::on;
        nodes_.request_schedule();
      },
      kPhasePriority);
}

void Controls::set_power_cap(JobIndex j, double cap_W) {
  Job& job = jobs_.job(j);
  if (job.state == JobState::running) return recap(j, cap_W);
  FLEETWATT_ASSERT(job.state == JobState::queued, "a power cap is set on a job that has ended");
  job.controls.power_cap_W = cap_W;
}

}  // namespace fleetwatt::sim
