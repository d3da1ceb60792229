// Demand response: between start_s and end_s the facility stays at or under target_w, by pausing the most
// recent jobs or by capping every running job's GPUs.
#include <fmt/format.h>

#include <algorithm>

#include "fleetwatt/sim/policies/policies.hpp"
#include "policy_support.hpp"

namespace fleetwatt::sim {

void DemandResponseScheduler::shed(SchedulerContext& ctx) {
  shed_ = true;
  shed_at_ = ctx.now();
  const std::vector<JobIndex> running(ctx.running().begin(), ctx.running().end());
  if (action_ == Action::cap) {
    // The highest common per-GPU cap that meets the target: the predicted peak is monotone in the cap.
    const FleetPower fp = ctx.fleet_power();
    const double floor_W = std::max(fp.gpu_idle_W, min_cap_fraction_ * fp.gpu_tdp_W);
    double lo = floor_W, hi = std::max(floor_W, fp.gpu_tdp_W);
    if (predicted_peak_facility_W(ctx, hi) > target_W_) {
      if (predicted_peak_facility_W(ctx, lo) <= target_W_) {
        for (int k = 0; k < 60; ++k) {
          const double mid = 0.5 * (lo + hi);
          (predicted_peak_facility_W(ctx, mid) <= target_W_ ? lo : hi) = mid;
        }
      }
      cap_W_ = lo;
      for (JobIndex j : running) {
        const Job& job = ctx.job(j);
        if (job.controls.power_cap_W > 0.0 && job.controls.power_cap_W <= cap_W_) continue;
        const double before = job.controls.power_cap_W;
        ctx.set_power_cap(j, cap_W_);  // accounts the job's time so far first
        capped_.push_back({j, before, ctx.job(j).controls.capped_gpu_seconds});
      }
    }
  }
  // Pausing: the whole action under "pause", the fallback under "cap" when the floor is not enough.
  for (auto it = running.rbegin(); it != running.rend() && predicted_peak_facility_W(ctx) > target_W_; ++it) {
    if (ctx.job(*it).controls.paused) continue;
    ctx.pause(*it);
    paused_.push_back(*it);
  }
}

void DemandResponseScheduler::restore(SchedulerContext& ctx) {
  restored_ = true;
  const Time now = ctx.now();
  for (JobIndex j : paused_) {
    const Job& job = ctx.job(j);
    if (job.state != JobState::running || !job.controls.paused) continue;
    lost_gpu_s_ += static_cast<double>(job.gpus.size()) * (now - shed_at_).seconds();
    ctx.resume(j);
  }
  for (const auto& c : capped_) {
    const Job& job = ctx.job(c.job);
    if (job.state == JobState::running) ctx.set_power_cap(c.job, c.cap_before);  // accounts the capped time
    lost_gpu_s_ += job.controls.capped_gpu_seconds - c.lost_before;
  }
}

void DemandResponseScheduler::schedule(SchedulerContext& ctx) {
  const Time now = ctx.now();
  if (!armed_) {
    armed_ = true;
    ctx.wake_at(start_);
    ctx.wake_at(end_);
  }
  const bool during = now >= start_ && now < end_;
  if (during && !shed_) shed(ctx);
  if (!during && shed_ && !restored_ && now >= end_) restore(ctx);
  if (!during) {
    fifo_pass(ctx);
    return;
  }
  const FleetPower fp = ctx.fleet_power();
  double peak = predicted_peak_facility_W(ctx);
  for (JobIndex j : queue_copy(ctx)) {
    const Job& job = ctx.job(j);
    const bool capped =
        cap_W_ > 0.0 && !(job.controls.power_cap_W > 0.0 && job.controls.power_cap_W <= cap_W_);
    // At the event's cap when it will start under it.
    const double inc =
        job.spec.n_gpus * peak_increment_per_gpu_W(job, fp.gpu_idle_W, capped ? cap_W_ : 0.0) * fp.pue;
    if (peak + inc > target_W_) break;
    auto p = ctx.place(j);
    if (!p) break;
    if (capped) {
      capped_.push_back({j, job.controls.power_cap_W, job.controls.capped_gpu_seconds});
      ctx.set_power_cap(j, cap_W_);
    }
    ctx.start(j, std::move(*p));
    peak += inc;
  }
}

std::vector<std::pair<std::string, double>> DemandResponseScheduler::metrics() const {
  return {{"dr_paused_jobs", static_cast<double>(paused_.size())},
          {"dr_capped_jobs", static_cast<double>(capped_.size())},
          {"dr_cap_W", cap_W_},
          {"dr_lost_gpu_hours", lost_gpu_s_ / 3600.0}};
}

SchedulerEntry dr_entry() {
  using jobs::ParamType;
  return {
      "dr",
      "demand response: the facility at or under target_w between start_s and end_s",
      {
          {"start_s", ParamType::number, {}, "required", "s", "the event's start", {}},
          {"end_s", ParamType::number, {}, "required", "s", "the event's end", {}},
          {"target_w", ParamType::number, {}, "required", "W", "the facility power to hold", {"target_W"}},
          {"action",
           ParamType::string,
           std::string("pause"),
           "",
           "",
           "pause: the latest jobs; cap: one GPU cap for every running job (pausing if the floor is too "
           "high)",
           {}},
          {"min_cap_fraction",
           ParamType::number,
           0.3,
           "",
           "",
           "cap: lowest GPU cap, as a fraction of TDP",
           {}},
      },
      [](const jobs::ParamSet& p, const sim::SchedulerConfig&) -> std::unique_ptr<Scheduler> {
        const double start_s = p.get_double("start_s"), end_s = p.get_double("end_s");
        const double target_W = p.get_positive("target_w");
        const std::string action = p.get_string("action");
        if (action != "pause" && action != "cap")
          throw jobs::ConfigError(p.where_of("action"), p.dotted("action"),
                                  fmt::format("'{}' is not pause or cap", action));
        const double floor = p.get_double("min_cap_fraction");
        if (!(floor > 0.0 && floor <= 1.0))
          throw jobs::ConfigError(p.where_of("min_cap_fraction"), p.dotted("min_cap_fraction"),
                                  fmt::format("must be in (0, 1], got {}", floor));
        return std::make_unique<DemandResponseScheduler>(
            start_s, end_s, target_W,
            action == "cap" ? DemandResponseScheduler::Action::cap : DemandResponseScheduler::Action::pause,
            floor);
      }};
}

}  // namespace fleetwatt::sim
