// Jobs into the engine: drawing each from its source, predicting it on every GPU type it may get and
// checking the plan (job_intake.hpp), one arrival scheduled ahead at a time, and finished jobs leaving in
// job order to a job sink.
#include <fmt/format.h>

#include <algorithm>

#include "event_priorities.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "job_intake.hpp"

namespace fleetwatt::sim {

void Engine::take_run(Job& job, const TypedRun& r) const {
  job.plan = r.plan;
  job.epoch = EpochRun::of(r.plan);
  job.spec.epochs = r.epochs;
  job.spec.meta.dataset_samples = r.dataset_samples;
  plan_steps(job);
}

bool Engine::draw_job() {
  if (!source_) return false;
  const HeldJobsLimit& limit = setup_.held_jobs;
  if (limit.jobs && jobs_.size() >= limit.jobs)
    throw jobs::ConfigError(
        limit.where, limit.key,
        fmt::format("at {} the run holds {} jobs (queued, running, or finished behind an earlier running "
                    "one; ~{:.3g} GiB), the most the memory allowed for it (--max-memory) holds: the fleet "
                    "cannot keep up with the arrivals; lower the rate, add GPUs or shorten the horizon",
                    format_time(queue_.now()), jobs_.size(),
                    static_cast<double>(jobs_.size()) * limit.bytes_per_job / 1073741824.0));
  std::optional<jobs::JobSpec> next = source_->next();
  if (!next) {
    source_.reset();
    return false;
  }
  jobs::JobSpec& spec = *next;
  const auto& groups = layout_.groups();
  const auto& types = layout_.types();
  check_gpu_count(spec.class_origin, spec.id, spec.n_gpus, layout_.largest_group_gpus(),
                  groups.size() > 1 ? "the largest node group" : "the fleet");
  Job job;
  TypedRun run;  // what it starts as
  if (types.size() == 1) {
    run = {plan_job(spec, types.front(), predictor_), spec.epochs, spec.meta.dataset_samples};
    if (check_plan(spec, run.plan, types.front(), predictor_.name())) ++summary_.capped_predictions;
    check_whole_length(spec, run.plan, run.epochs);
  } else {
    // Every type's run up front, so a bad job fails here, before anything is written. A type the
    // predictor refuses the job on is left out for it; a job no type (with a group large enough) can
    // run is refused.
    std::optional<jobs::ConfigError> first_error;
    std::uint32_t largest = 0;
    bool any = false;
    for (std::uint32_t t = 0; t < types.size(); ++t) {
      const auto& gpu = types[t];
      bool ok = true;
      try {
        typed_.push_back(run_on_type(spec, gpu, predictor_));
        if (check_plan(spec, typed_.back().plan, gpu, predictor_.name())) ++summary_.capped_predictions;
        check_whole_length(spec, typed_.back().plan, typed_.back().epochs);
      } catch (const jobs::ConfigError& e) {
        if (!first_error) first_error = e;
        if (typed_.size() < jobs_.size() * types.size() + t + 1) typed_.emplace_back();
        ok = false;
      }
      runs_on_.push_back(ok ? 1 : 0);
      if (!ok) continue;
      const auto r = typed_.back().plan.profile();
      job.queued_peak_W = std::max(job.queued_peak_W, std::max(r.peak_W, r.valley_W));
      job.queued_idle_W = any ? std::min(job.queued_idle_W, gpu.idle_W) : gpu.idle_W;
      any = true;
      for (std::uint32_t g = 0; g < groups.size(); ++g)
        if (layout_.type_of_group(g) == t) largest = std::max(largest, layout_.gpus(g));
    }
    if (!any) throw *first_error;
    check_gpu_count(spec.class_origin, spec.id, spec.n_gpus, largest,
                    "the largest node group of a GPU type it can run on");
    // Until it starts: the reference type's run, or the first type it can run on.
    std::size_t first = typed_.size() - types.size();
    while (!runs_on_[first]) ++first;
    run = typed_[first];
  }
  job.submit = Time::from_seconds(spec.submit_s);
  job.spec = std::move(spec);
  take_run(job, run);
  job.gpu_type.tdp_W = groups.front().gpu.tdp_W;  // until it starts on a type of its own
  job.smoothing_on = smoothing_any_;
  job.failures_on = setup_.failures.enabled;
  if (job.submit >= Time::zero()) {
    ++jobs_total_;
    if (job.submit < setup_.horizon) ++jobs_arrived_;
  }
  jobs_.push_back(std::move(job));
  ++drawn_;
  return true;
}

void Engine::schedule_next_arrival() {
  if (arrivals_done_) return;
  if (next_arrival_ == drawn_ && !draw_job()) {
    arrivals_done_ = true;
    return;
  }
  const JobIndex j = next_arrival_;
  // Jobs come in submit order: once one arrives at or after the horizon, so do all after it.
  if (job_at(j).submit >= setup_.horizon) {
    arrivals_done_ = true;
    return;
  }
  ++next_arrival_;
  queue_.schedule_at(
      job_at(j).submit, [this, j] { arrive(j); }, kArrivalPriority);
}

const Job& Engine::job(JobIndex j) const {
  if (!holds(j)) throw std::out_of_range(fmt::format("job {} is not held by the engine", j));
  return job_at(j);
}

void Engine::drop_finished() {
  while (!jobs_.empty() && first_job_ < next_arrival_ && jobs_.front().state == JobState::finished) {
    Job& job = jobs_.front();
    account_job(job);
    job_sink_->job_done(first_job_, job);
    jobs_.pop_front();
    if (!typed_.empty()) {
      const std::size_t types = layout_.types().size();
      typed_.erase(typed_.begin(), typed_.begin() + static_cast<std::ptrdiff_t>(types));
      runs_on_.erase(runs_on_.begin(), runs_on_.begin() + static_cast<std::ptrdiff_t>(types));
    }
    ++first_job_;
  }
}

void Engine::arrive(JobIndex j) {
  job_at(j).state = JobState::queued;
  waiting_.push_back(j);
  schedule_next_arrival();
  request_schedule();
}

}  // namespace fleetwatt::sim
