// The default warm-up. With ample room, the jobs running at time t are those that arrived in
// (t - longest run time, t]: an infinite-server queue forgets its empty start exactly once it has run for
// the longest run time. A real fleet queues at its daily peak, and its backlog needs more; twice the
// longest run time brought the default day's 00:00 power within 1 % of its 24:00 power (README, "Scenario
// reference", has the measurement).
#include "fleetwatt/workloads/warmup.hpp"

#include <algorithm>
#include <cmath>

namespace fleetwatt::workloads {

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
  return std::ceil(s / 3600.0) * 3600.0;
}

}  // namespace fleetwatt::workloads
