// The power and run-time estimates the policies share: a job's assumed run time, its peak increment over
// idle per GPU, and the facility peak predicted with every running job at its peak. The cap law and the
// headroom arithmetic of powercap and dr rest on these.
#include "fleetwatt/sim/policies.hpp"

#include <algorithm>

namespace fleetwatt::sim {

Duration estimated_runtime(const Job& job, EstimateSource source) {
  if (source == EstimateSource::user && job.spec.user_estimate_s && *job.spec.user_estimate_s > 0.0)
    return Duration::from_seconds(*job.spec.user_estimate_s);
  return job.predicted_runtime();
}

double peak_increment_per_gpu_W(const Job& job, double gpu_idle_W, double extra_cap_W) {
  double w = std::max(job.profile.peak_W, job.profile.valley_W);
  double idle = gpu_idle_W;
  if (job.group != kNoGroup) {
    idle = job.gpu_idle_W;  // placed: its own type's phases and idle power
  } else if (job.queued_peak_W > 0.0) {
    // Not placed yet on a fleet of several GPU types: an upper bound over the types it may get.
    w = job.queued_peak_W;
    idle = job.queued_idle_W;
  }
  if (job.power_cap_W > 0.0) w = std::min(w, job.power_cap_W);
  if (extra_cap_W > 0.0) w = std::min(w, extra_cap_W);
  return std::max(0.0, w - idle);
}

double predicted_peak_facility_W(const SchedulerContext& ctx, double extra_cap_W) {
  const FleetPower fp = ctx.fleet_power();
  const Cluster& c = ctx.cluster();
  double it =
      (fp.idle_it_W ? *fp.idle_it_W : c.nodes() * fp.node_base_W + c.gpus() * fp.gpu_idle_W) + fp.network_W;
  for (JobIndex j : ctx.running()) {
    const Job& job = ctx.job(j);
    if (!job.paused)
      it += static_cast<double>(job.gpus.size()) * peak_increment_per_gpu_W(job, fp.gpu_idle_W, extra_cap_W);
  }
  return it * fp.pue;
}

}  // namespace fleetwatt::sim
