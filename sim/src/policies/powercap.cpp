// Facility power cap: start jobs only while the predicted facility peak stays under the cap, or (gpu_cap
// mode) start them with their GPUs capped to the headroom.
#include <fmt/format.h>

#include "fleetwatt/sim/policies/policies.hpp"
#include "policy_support.hpp"

namespace fleetwatt::sim {

void PowerCapScheduler::schedule(SchedulerContext& ctx) {
  const FleetPower fp = ctx.fleet_power();
  double peak = predicted_peak_facility_W(ctx);
  // Every job adds a non-negative increment: over the cap none can start in queue mode, and a queue of any
  // depth is not walked (a cap below the idle fleet's power walked 83,000 queued jobs at every arrival).
  if (!gpu_cap_ && peak > cap_W_) return;
  for (JobIndex j : queue_copy(ctx)) {
    const Job& job = ctx.job(j);
    const double n = job.spec.n_gpus;
    const double inc = n * peak_increment_per_gpu_W(job, fp.gpu_idle_W) * fp.pue;
    if (peak + inc <= cap_W_) {
      if (auto p = ctx.place(j)) {
        ctx.start(j, std::move(*p));
        peak += inc;
      }
      continue;
    }
    if (!gpu_cap_) continue;
    // Cap its GPUs to what the headroom allows, if that is still a useful fraction of the board power. On a
    // fleet of several GPU types the headroom is counted above the lowest idle power among the types the
    // job may get, so the cap holds whichever it lands on (the guards stay the reference type's).
    const double idle = job.queued_peak_W > 0.0 ? job.queued_idle_W : fp.gpu_idle_W;
    const double cap = idle + (cap_W_ - peak) / fp.pue / n;
    if (cap < min_cap_fraction_ * fp.gpu_tdp_W || cap <= fp.gpu_idle_W) continue;
    if (auto p = ctx.place(j)) {
      ctx.set_power_cap(j, cap);
      const double capped_inc = n * peak_increment_per_gpu_W(ctx.job(j), fp.gpu_idle_W) * fp.pue;
      ctx.start(j, std::move(*p));
      peak += capped_inc;
    }
  }
}

SchedulerEntry powercap_entry() {
  using jobs::ParamSpec;
  using jobs::ParamType;
  return {"powercap",
          "facility power cap: jobs start only while the predicted facility peak stays under cap_w",
          {
              {"cap_w", ParamType::number, {}, "required", "W", "the facility power cap", {"cap_W"}},
              {"mode",
               ParamType::string,
               std::string("queue"),
               "",
               "",
               "queue: wait under the cap; gpu_cap: start with GPUs capped to the headroom",
               {}},
              {"min_cap_fraction",
               ParamType::number,
               0.5,
               "",
               "",
               "gpu_cap: lowest GPU cap, as a fraction of TDP",
               {}},
          },
          [](const jobs::ParamSet& p, const sim::SchedulerConfig&) -> std::unique_ptr<Scheduler> {
            const double cap_W = p.get_positive("cap_w");
            const std::string mode = p.get_string("mode");
            if (mode != "queue" && mode != "gpu_cap")
              throw jobs::ConfigError(p.where_of("mode"), p.dotted("mode"),
                                      fmt::format("'{}' is not queue or gpu_cap", mode));
            return std::make_unique<PowerCapScheduler>(cap_W, mode == "gpu_cap",
                                                       p.get_double("min_cap_fraction"));
          }};
}

}  // namespace fleetwatt::sim
