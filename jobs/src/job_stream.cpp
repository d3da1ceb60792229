// A streamable scenario's workload as a job source (see job_stream.hpp): build_workload's jobs, in its
// order, drawn as the run goes.
#include "fleetwatt/jobs/job_stream.hpp"

#include <algorithm>

#include "fleetwatt/jobs/job_generator.hpp"
#include "fleetwatt/jobs/job_source.hpp"
#include "fleetwatt/jobs/warmup.hpp"

namespace fleetwatt::jobs {

bool streamable(const WorkloadConfig& w) noexcept {
  return !w.trace && !w.preset;
}

ScenarioJobStream::ScenarioJobStream(const WorkloadConfig& w, std::uint64_t seed,
                                     const std::atomic<bool>* stop)
    : ScenarioJobStream(w, w.jobs, seed, stop) {}

ScenarioJobStream::ScenarioJobStream(const WorkloadConfig& w, std::vector<JobSpec> explicit_jobs,
                                     std::uint64_t seed, const std::atomic<bool>* stop)
    : fixed_(std::move(explicit_jobs)) {
  // build_workload stable-sorts [explicit, warm-up, window] by submit time: the same order is a merge of
  // the three, each in its own order (explicit ones stable-sorted), taking ties in that order.
  sort_by_submit(fixed_);
  any_smoothing_ = std::any_of(fixed_.begin(), fixed_.end(), smooths_itself);
  size_ = fixed_.size();
  if (!w.generator) return;
  const GeneratorConfig& g = *w.generator;
  std::int64_t next = 1;
  for (const auto& j : fixed_) next = std::max(next, j.id + 1);
  // The warm-up's ids follow the window's, so the window is counted first: its stream drawn once, dropped.
  // A periodic warm-up repeats the window's jobs, so they are kept from that count (warmup.hpp).
  const double warmup_s = w.warmup_s.value_or(0.0);
  const bool warm = g.start_s == 0.0 && warmup_s > 0.0;
  std::vector<JobSpec> window_jobs;
  std::uint64_t window = 0;
  for (ArrivalStream count(g, seed, next);;) {
    auto j = count.next();
    if (!j) break;
    if (++window % core::kStopPollEvery == 0) core::throw_if_stopped(stop);
    // Only the window's last warmup_s are repeated (all of it when the warm-up is longer than the window):
    // memory for the copies, not for the whole horizon.
    if (warm && w.periodic_warmup && j->submit_s >= w.horizon_s - warmup_s)
      window_jobs.push_back(std::move(*j));
  }
  size_ += window;
  if (warm) {
    const std::int64_t first = next + static_cast<std::int64_t>(window);
    warmup_ = w.periodic_warmup ? periodic_warmup_jobs(window_jobs, w.horizon_s, warmup_s, first, stop)
                                : generate_warmup_jobs(g, seed, warmup_s, first, stop);
    size_ += warmup_.size();
  }
  window_.emplace(g, seed, next);
  window_next_ = window_->next();
}

std::optional<JobSpec> ScenarioJobStream::next() {
  const JobSpec* best = nullptr;
  int from = -1;
  const auto consider = [&](const JobSpec* j, int source) {
    if (j && (!best || j->submit_s < best->submit_s)) best = j, from = source;
  };
  consider(next_fixed_ < fixed_.size() ? &fixed_[next_fixed_] : nullptr, 0);
  consider(next_warmup_ < warmup_.size() ? &warmup_[next_warmup_] : nullptr, 1);
  consider(window_next_ ? &*window_next_ : nullptr, 2);
  switch (from) {
    case 0:
      return std::move(fixed_[next_fixed_++]);
    case 1:
      return std::move(warmup_[next_warmup_++]);
    case 2: {
      std::optional<JobSpec> j = std::move(window_next_);
      window_next_ = window_->next();
      return j;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace fleetwatt::jobs
