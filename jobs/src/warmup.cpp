// The default warm-up. With ample room, the jobs running at time t are those that arrived in
// (t - longest run time, t]: an infinite-server queue forgets its empty start exactly once it has run for
// the longest run time. A real fleet queues at its daily peak, and its backlog needs more: twice the
// longest run time leaves the fleet's state at 0 as it is for any longer warm-up (docs/scenario.md,
// "Scenario reference", has the measurement). A periodic warm-up repeats the window's own arrivals instead.
#include "fleetwatt/jobs/warmup.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace fleetwatt::jobs {

double longest_generated_runtime_s(const GeneratorConfig& g, const RuntimeEstimate& estimate) {
  double longest = 0.0;
  if (!estimate) return longest;
  for (const auto& m : g.mix) {
    for (const std::uint32_t n : m.n_gpus) {
      JobSpec j;
      j.job_class = m.job_class;
      j.class_origin = m.class_origin;
      j.n_gpus = n;
      j.epochs = m.epochs_max;
      j.meta.dataset_samples = m.samples_max;  // 0: the class's reference size, as generated
      longest = std::max(longest, estimate(j));
    }
  }
  return longest;
}

double default_warmup_s(const WorkloadConfig& w, const RuntimeEstimate& estimate) {
  if (!w.generator || w.generator->start_s != 0.0) return 0.0;
  const double s = kWarmupRuntimes * longest_generated_runtime_s(*w.generator, estimate);
  // A periodic warm-up rounds up to whole days, the period of the day/night cycle: on a one-day window every
  // arrival then acts on the fleet at 0 as it does at the horizon (docs/scenario.md, "Scenario reference",
  // measures the difference against 13 h), and a longer window repeats only its last days.
  if (w.periodic_warmup) return std::ceil(s / 86400.0) * 86400.0;
  return std::ceil(s / 3600.0) * 3600.0;
}

std::vector<JobSpec> periodic_warmup_jobs(const std::vector<JobSpec>& window, double period_s,
                                          double warmup_s, std::int64_t first_id,
                                          const std::atomic<bool>* stop) {
  std::vector<JobSpec> jobs;
  if (!(period_s > 0.0) || !(warmup_s > 0.0)) return jobs;
  // Oldest copies first: copy k of a job sits at submit - k x period; walk k from the deepest copy that can
  // reach into [-warmup, 0) up to 1, and the window in submit order inside each copy.
  std::vector<const JobSpec*> ordered;
  for (const auto& j : window)
    if (j.submit_s >= 0.0 && j.submit_s < period_s) ordered.push_back(&j);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const JobSpec* a, const JobSpec* b) { return a->submit_s < b->submit_s; });
  if (ordered.empty()) return jobs;  // nothing to copy: no walk through the copies
  const auto cycles = static_cast<std::int64_t>(std::ceil(warmup_s / period_s));
  std::int64_t id = first_id;
  for (std::int64_t k = cycles; k >= 1; --k) {
    core::throw_if_stopped(stop);
    const double shift = static_cast<double>(k) * period_s;
    for (const JobSpec* j : ordered) {
      const double t = j->submit_s - shift;
      if (t < -warmup_s) continue;
      JobSpec copy = *j;
      copy.id = id++;
      copy.submit_s = t;
      if (copy.deadline_s) *copy.deadline_s -= shift;
      jobs.push_back(std::move(copy));
    }
  }
  return jobs;
}

}  // namespace fleetwatt::jobs
