// The power and run-time estimates the policies share: a job's assumed run time, its peak increment over
// idle per GPU, and the facility peak predicted with every running job at its peak. The cap law and the
// headroom arithmetic of powercap and dr rest on these. What a cap does to power and time is the one clock
// model's (models/hardware/clock_model.hpp), as in the engine.
#include <algorithm>

#include "fleetwatt/models/hardware/clock_model.hpp"
#include "fleetwatt/sim/policies/policies.hpp"

namespace fleetwatt::sim {

Duration estimated_runtime(const Job& job, EstimateSource source) {
  if (source == EstimateSource::user && job.spec.user_estimate_s && *job.spec.user_estimate_s > 0.0)
    return Duration::from_seconds(*job.spec.user_estimate_s);
  if (!(job.controls.power_cap_W > 0.0)) return job.predicted_runtime();
  // A capped job's phases stretch as the clock model says, as they will in the engine.
  const auto& clock = models::clock_model();
  const double epoch_s =
      job.epoch.peak.seconds() * clock.stretch(job.peak_W(), job.controls.power_cap_W, job.gpu_type.tdp_W) +
      job.epoch.valley.seconds() *
          clock.stretch(job.valley_W(), job.controls.power_cap_W, job.gpu_type.tdp_W);
  return Duration::from_seconds(epoch_s * job.spec.epochs);
}

double peak_increment_per_gpu_W(const Job& job, double gpu_idle_W, double extra_cap_W) {
  double w = std::max(job.peak_W(), job.valley_W());
  double idle = gpu_idle_W;
  if (job.gpu_type.group != kNoGroup) {
    idle = job.gpu_type.idle_W;  // placed: its own type's phases and idle power
  } else if (job.queued_peak_W > 0.0) {
    // Not placed yet on a fleet of several GPU types: an upper bound over the types it may get.
    w = job.queued_peak_W;
    idle = job.queued_idle_W;
  }
  w = models::ClockModel::capped_power(w, job.controls.power_cap_W);
  w = models::ClockModel::capped_power(w, extra_cap_W);
  return std::max(0.0, w - idle);
}

double predicted_peak_facility_W(const SchedulerContext& ctx, double extra_cap_W) {
  const FleetPower fp = ctx.fleet_power();
  const Cluster& c = ctx.cluster();
  double it =
      (fp.idle_it_W ? *fp.idle_it_W : c.nodes() * fp.node_base_W + c.gpus() * fp.gpu_idle_W) + fp.network_W;
  for (JobIndex j : ctx.running()) {
    const Job& job = ctx.job(j);
    if (!job.controls.paused)
      it += static_cast<double>(job.gpus.size()) * peak_increment_per_gpu_W(job, fp.gpu_idle_W, extra_cap_W);
  }
  return it * fp.pue;
}

}  // namespace fleetwatt::sim
