// Job interruptions, restarts and lost work (see engine_failures.hpp).
#include "engine_failures.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "event_priorities.hpp"
#include "fleetwatt/core/random.hpp"

namespace fleetwatt::sim {

namespace {
// Tags the failure streams apart from every other use of the seed (arrivals use the seed itself, the
// warm-up seed ^ kWarmupStream).
constexpr std::uint64_t kFailureStream = 0x6a09e667f3bcc909ULL;
}  // namespace

double Failures::stream_uniform(std::uint64_t seed, std::int64_t job_id, std::uint64_t k) {
  // Counter-based: draw k of a job needs no state but k, so a job's stream costs 8 bytes, not a generator.
  using core::splitmix64;
  const std::uint64_t x =
      splitmix64(splitmix64(splitmix64(seed ^ kFailureStream) + static_cast<std::uint64_t>(job_id)) + k);
  return core::unit_interval(x);
}

// Each job is marked failures_on as the engine draws it (the job table's columns).
Failures::Failures(JobRuntime& jobs, const FailureSetup& setup) : jobs_(jobs), setup_(setup) {}

double Failures::draw_gap_s(Job& job) const {
  const double rate = job.failures.rate_per_gpu_s * static_cast<double>(job.gpus.size());
  if (!(rate > 0.0)) return std::numeric_limits<double>::infinity();
  const double u = stream_uniform(setup_.seed, job.spec.id, job.failures.draws++);
  return -std::log1p(-u) / rate;  // exponential with mean 1 / rate
}

void Failures::job_started(JobIndex j) {
  Job& job = jobs_.job(j);
  const double per_hour = job.spec.failure_rate_per_gpu_hour.value_or(setup_.rate_per_gpu_hour);
  job.failures.rate_per_gpu_s = per_hour / 3600.0;
  job.failures.left_s = draw_gap_s(job);
  expose(j);
}

void Failures::epoch_begun(JobIndex j) {
  Job& job = jobs_.job(j);
  job.failures.epoch_start = jobs_.queue().now();
  job.failures.epoch_paused = Duration::zero();
  job.failures.epoch_energy_J = job.energy_J;
}

void Failures::expose(JobIndex j) {
  Job& job = jobs_.job(j);
  auto& f = job.failures;
  const Time now = jobs_.queue().now();
  f.exposed = true;
  f.exposed_since = now;
  // A gap past the horizon never strikes in this run (and may not fit the integer clock): no event.
  if (!(f.left_s < (jobs_.horizon() - now).seconds())) return;
  f.event = jobs_.queue().schedule_at(
      now + Duration::from_seconds(f.left_s),
      [this, j] {
        jobs_.job(j).failures.event = 0;
        strike(j, true);
      },
      kPhasePriority);
}

void Failures::cover(JobIndex j) {
  Job& job = jobs_.job(j);
  auto& f = job.failures;
  if (!f.exposed) return;
  const Time now = jobs_.queue().now();
  f.left_s = std::max(0.0, f.left_s - (now - f.exposed_since).seconds());
  f.exposure_gpu_s += static_cast<double>(job.gpus.size()) * window_seconds(f.exposed_since, now);
  f.exposed = false;
  if (f.event) jobs_.queue().cancel(f.event);
  f.event = 0;
}

void Failures::paused(JobIndex j) {
  cover(j);
  jobs_.job(j).failures.paused_at = jobs_.queue().now();
}

void Failures::resumed(JobIndex j) {
  Job& job = jobs_.job(j);
  job.failures.epoch_paused += jobs_.queue().now() - job.failures.paused_at;
  // A job paused during its restart resumes the restart; the exposure returns when the epoch does.
  if (job.phase != JobPhase::restart) expose(j);
}

void Failures::job_ended(JobIndex j) {
  cover(j);
  jobs_.job(j).failures.stage = JobFailures::Stage::none;
}

namespace {

/// What a scripted interruption strikes: a job running an epoch (not paused, not restarting).
bool running_an_epoch(const Job& job) {
  return job.state == JobState::running && !job.controls.paused &&
         (job.phase == JobPhase::peak || job.phase == JobPhase::valley);
}

}  // namespace

void Failures::interrupt_at(JobIndex j, Time t) {
  jobs_.queue().schedule_at(
      t,
      [this, j] {
        if (!jobs_.holds(j)) return;  // finished and streamed away: nothing to interrupt
        if (running_an_epoch(jobs_.job(j))) strike(j, false);
      },
      kPhasePriority);
}

void Failures::interrupt_running_at(Time t, std::uint64_t& count) {
  jobs_.queue().schedule_at(
      t,
      [this, &count] {
        auto& held = jobs_.held_jobs();
        const JobIndex first = jobs_.first_held();
        for (std::size_t k = 0; k < held.size(); ++k) {
          if (running_an_epoch(held[k])) {
            strike(first + k, false);
            ++count;
          }
        }
      },
      kPhasePriority);
}

void Failures::strike(JobIndex j, bool random) {
  Job& job = jobs_.job(j);
  auto& f = job.failures;
  const Time now = jobs_.queue().now();
  jobs_.meter().settle(job, now);
  if (job.phase == JobPhase::peak) jobs_.meter().close_peak(job);
  cover(j);
  if (random) f.left_s = draw_gap_s(job);  // this gap is spent; a scripted strike leaves the stream alone
  jobs_.queue().cancel(job.next_event);
  job.next_event = 0;
  jobs_.hold_steps(
      j);  // a step-level peak's next segment is cancelled too: the epoch is redone from its start
  if (now >= Time::zero()) {
    // Everything since the last checkpoint (the epoch's start) is redone; paused time held no work.
    ++f.interruptions;
    const Duration work = (now - f.epoch_start) - f.epoch_paused;
    f.lost_gpu_s += static_cast<double>(job.gpus.size()) * work.seconds();
    f.lost_J += job.energy_J - f.epoch_energy_J;
  }
  // A failed job's all-reduce, reads and checkpoint write leave the links; they return at its restart.
  jobs_.leave_network(job);
  job.phase = JobPhase::restart;
  f.stage = JobFailures::Stage::delay;
  job.phase_start = now;
  jobs_.meter().draw(job, now, phase_power(job, job.phase));
  job.phase_end = now + setup_.restart_delay;
  schedule_restart_step(j);
}

void Failures::schedule_restart_step(JobIndex j) {
  Job& job = jobs_.job(j);
  job.next_event = jobs_.queue().schedule_at(
      job.phase_end, [this, j] { restart_step(j); }, kPhasePriority);
}

void Failures::restart_step(JobIndex j) {
  Job& job = jobs_.job(j);
  auto& f = job.failures;
  const Time now = jobs_.queue().now();
  job.next_event = 0;
  jobs_.meter().settle(job, now);
  if (f.stage == JobFailures::Stage::delay) {
    // The reload: the last checkpoint read back over the path it was written on takes at least as long
    // as writing it did (the job's checkpoint part as last simulated), near the floor at checkpoint power.
    f.stage = JobFailures::Stage::ramp;
    job.phase_start = now;
    jobs_.meter().draw(job, now, phase_power(job, job.phase));
    job.phase_end = now + std::max(setup_.restart_ramp, job.epoch.valley);
    schedule_restart_step(j);
    return;
  }
  f.stage = JobFailures::Stage::none;
  jobs_.rejoin_network(job);
  expose(j);
  jobs_.enter_peak(j);  // the lost epoch again, from its start
}

void Failures::close(Time horizon, RunSummary& s) {
  s.failures = true;
  s.failure_rate_per_gpu_hour = setup_.rate_per_gpu_hour;
  for (auto& job : jobs_.held_jobs()) {
    auto& f = job.failures;
    if (job.state == JobState::running && f.exposed) {
      f.exposure_gpu_s += static_cast<double>(job.gpus.size()) * window_seconds(f.exposed_since, horizon);
      f.exposed_since = horizon;
    }
  }
}

void Failures::account(const Job& job, RunSummary& s) {
  const auto& f = job.failures;
  s.interruptions += f.interruptions;
  s.failure_exposure_gpu_s += f.exposure_gpu_s;
  s.interruptions_expected += f.rate_per_gpu_s * f.exposure_gpu_s;
  s.lost_gpu_s += f.lost_gpu_s;
  s.lost_J += f.lost_J;
  s.restart_gpu_s += static_cast<double>(job.gpus.size()) * f.restart_s;
  s.restart_J += f.restart_J;
}

}  // namespace fleetwatt::sim
