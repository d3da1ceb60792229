// Step-level jobs in the engine: which jobs run step by step, their start-up, and each
// peak phase as the segments of its steps, stage by stage. The epoch machinery around them is the
// engine's own: an epoch of a step-level job is one checkpoint interval (its peak the interval's steps,
// its valley the checkpoint), so pauses, caps, limits, the network's re-timing and the energy split work
// as for every job; here only the draw inside a peak changes, one event per segment boundary of the job.
#include <algorithm>
#include <cmath>
#include <limits>

#include "event_priorities.hpp"
#include "fleetwatt/sim/engine/engine.hpp"

namespace fleetwatt::sim {

void Engine::plan_steps(Job& job) const {
  const auto& plan = job.plan;
  const auto& schedule = job.spec.schedule;
  job.stepped = false;
  job.startup = Duration::zero();
  if (!(plan.steps > 0.0) || schedule.waveform == jobs::Waveform::epochs) return;
  const StepShape shape =
      StepShape::of(job.epoch.parts(), plan.steps, job.spec.meta.parallel.pp, job.spec.n_gpus);
  if (shape.step() <= Duration::zero()) return;
  // Automatically only a model-parallel (tp, cp or pp above 1) job, the large synchronous kind whose steps
  // show at the site, and only a step longer than about two samples of the facility series: a shorter
  // one averages out inside them, and the epoch's square wave gives the same series at a fraction of the
  // events. Data-parallel jobs keep their epochs unless they ask for steps.
  const auto& par = job.spec.meta.parallel;
  const Duration threshold = setup_.step_waveform_min.value_or(setup_.facility_interval * 2);
  if (schedule.waveform == jobs::Waveform::automatic && (par.replica_gpus() <= 1 || shape.step() < threshold))
    return;
  auto& w = job.wave;
  w = StepWave{};
  w.shape = shape;
  w.total_steps = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::llround(plan.steps * static_cast<double>(job.spec.epochs))));
  const auto per_epoch = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(plan.steps)));
  w.every = static_cast<std::uint32_t>(std::min<std::uint64_t>(
      schedule.checkpoint_every_steps > 0 ? schedule.checkpoint_every_steps : per_epoch, w.total_steps));
  // Its epochs become its checkpoint intervals; the last one runs the steps left.
  job.spec.epochs = static_cast<std::uint32_t>((w.total_steps + w.every - 1) / w.every);
  job.epoch.peak = shape.step() * w.every;
  // A job matched to a recorded run time has its start-up inside that time already.
  // The default start-up reads the checkpoint back at the bandwidth it is written at (the write, not an
  // asynchronous checkpoint's copy to host memory).
  const double read_back = plan.checkpoint_bytes > 0.0 ? plan.checkpoint_fixed_s() + plan.checkpoint_write_s
                                                       : plan[jobs::PartKind::checkpoint].s;
  const double startup_s = job.spec.matched_runtime_s ? 0.0 : read_back;
  job.startup = Duration::from_seconds(schedule.startup_s.value_or(startup_s));
  job.stepped = true;
}

void Engine::enter_startup(JobIndex j) {
  Job& job = job_at(j);
  job.phase = JobPhase::startup;
  job.phase_start = queue_.now();
  draw_phase(j);  // [smoothing]: raised to the floor
  job.phase_end = queue_.now() + phase_length(job, JobPhase::startup);
  job.next_event = queue_.schedule_at(
      job.phase_end, [this, j] { end_startup(j); }, kPhasePriority);
}

void Engine::end_startup(JobIndex j) {
  meter_.settle(job_at(j), queue_.now());
  enter_peak(j);
}

void Engine::size_step_phase(Job& job) {
  auto& w = job.wave;
  // With a network the epoch's parts were re-timed for this phase: the step follows it.
  if (network_)
    w.shape = StepShape::of(job.epoch.parts(), job.plan.steps, job.spec.meta.parallel.pp, job.spec.n_gpus);
  const std::uint64_t done = std::min<std::uint64_t>(std::uint64_t{job.epochs_done} * w.every, w.total_steps);
  w.steps_now = std::max<std::uint64_t>(1, std::min<std::uint64_t>(w.every, w.total_steps - done));
  job.epoch.peak = w.shape.step() * static_cast<std::int64_t>(w.steps_now);
  w.done = Duration::zero();
  w.at = queue_.now();
  w.next_W.assign(w.shape.stages, 0.0);
}

void Engine::draw_phase(JobIndex j) {
  Job& job = job_at(j);
  if (job.stepped && job.phase == JobPhase::peak) {
    step_segment(j);
    // /gpus/changes: without every segment, the step's mean from here on (energy over whole steps).
    if (!setup_.step_gpu_changes)
      meter_.record(
          job, queue_.now(),
          job.smoothing.on() ? job.smoothed.mean_W() : job.wave.shape.mean_W(job.controls.power_cap_W));
    return;
  }
  // An epoch's peak, valley or start-up: one level, raised to the [smoothing] floor (the slew limits at
  // these rare transitions are left out: they change the draw for seconds every epoch).
  const double w = phase_power(job, job.phase);
  meter_.draw(job, queue_.now(), job.smoothing.floored(w, job.controls.power_cap_W),
              phase_stretch(job, job.phase), w);
}

void Engine::step_segment(JobIndex j) {
  Job& job = job_at(j);
  auto& w = job.wave;
  const Time now = queue_.now();
  w.event = 0;
  const Duration step = w.shape.step();
  const Duration x = Duration::from_ns(w.done.ns() % step.ns());  // where in its step the job is
  Duration next = step;
  double raw_W = std::numeric_limits<double>::quiet_NaN();
  if (job.smoothing.on()) {
    // [smoothing]: the step's smoothed stages (power_smoothing.hpp), built once per shape and cap; its ramps
    // in pieces of at most a quarter of a facility interval.
    if (!job.smoothed.fits(w.shape, job.controls.power_cap_W))
      job.smoothed.build(w.shape, job.smoothing, job.controls.power_cap_W,
                         Duration::from_ns(std::max<std::int64_t>(1, setup_.facility_interval.ns() / 4)));
    raw_W = 0.0;
    for (std::uint32_t k = 0; k < w.shape.stages; ++k) {
      const auto& piece = job.smoothed.at(k, x);
      w.next_W[k] = piece.W;
      raw_W += piece.raw_W;
      next = std::min(next, piece.end);
    }
    raw_W /= static_cast<double>(w.shape.stages);
  } else {
    for (std::uint32_t k = 0; k < w.shape.stages; ++k) {
      const auto seg = w.shape.at(k, x);
      w.next_W[k] = job.controls.power_cap_W > 0.0 ? std::min(seg.W, job.controls.power_cap_W) : seg.W;
      next = std::min(next, seg.end);
    }
  }
  meter_.draw_stages(job, now, w.next_W, phase_stretch(job, JobPhase::peak), setup_.step_gpu_changes, raw_W);
  w.at = now;
  const Duration boundary = w.done - x + next;
  // The phase's end (the checkpoint) takes over from the last boundary on.
  if (boundary >= step * static_cast<std::int64_t>(w.steps_now)) return;
  const double k = job.controls.phase_stretch;
  const Duration wait =
      k == 1.0 ? boundary - w.done : Duration::from_seconds((boundary - w.done).seconds() * k);
  w.event = queue_.schedule_at(
      now + wait,
      [this, j, boundary] {
        meter_.settle(job_at(j), queue_.now());
        job_at(j).wave.done = boundary;
        step_segment(j);
      },
      kPhasePriority);
}

bool Engine::hold_steps(JobIndex j) {
  Job& job = job_at(j);
  auto& w = job.wave;
  if (!job.stepped || !w.event) return false;
  queue_.cancel(w.event);
  w.event = 0;
  const Duration ran = queue_.now() - w.at;
  const double k = job.controls.phase_stretch;
  w.done = w.done + (k == 1.0 ? ran : Duration::from_seconds(ran.seconds() / k));
  w.at = queue_.now();
  return true;
}

}  // namespace fleetwatt::sim
