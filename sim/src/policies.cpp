// The scheduling policies of policies.hpp and their registry entries.
#include "fleetwatt/sim/policies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

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

namespace {

std::vector<JobIndex> queue_copy(const SchedulerContext& ctx) {
  return {ctx.queue().begin(), ctx.queue().end()};
}

// Starts queued jobs in the given order while they can be placed; stops at the first that cannot.
void fifo_pass(SchedulerContext& ctx) {
  while (!ctx.queue().empty()) {
    const JobIndex head = ctx.queue().front();
    auto placement = ctx.place(head);
    if (!placement) return;
    ctx.start(head, std::move(*placement));
  }
}

}  // namespace

void SjfScheduler::schedule(SchedulerContext& ctx) {
  auto q = queue_copy(ctx);
  std::stable_sort(q.begin(), q.end(), [&](JobIndex a, JobIndex b) {
    return estimated_runtime(ctx.job(a), source_) < estimated_runtime(ctx.job(b), source_);
  });
  for (JobIndex j : q)
    if (auto p = ctx.place(j)) ctx.start(j, std::move(*p));
}

void EasyBackfillScheduler::schedule(SchedulerContext& ctx) {
  fifo_pass(ctx);
  if (ctx.queue().empty()) return;
  const auto q = queue_copy(ctx);
  const Job& head = ctx.job(q.front());
  const Time now = ctx.now();
  // Shadow time: when running jobs (by their estimated ends) free enough GPUs for the head.
  std::vector<std::pair<Time, std::uint32_t>> ends;
  for (JobIndex j : ctx.running()) {
    const Job& r = ctx.job(j);
    Time end = r.start + estimated_runtime(r, source_);
    if (end < now) end = now;  // overran its estimate: assume it ends now
    ends.emplace_back(end, static_cast<std::uint32_t>(r.gpus.size()));
  }
  std::sort(ends.begin(), ends.end());
  std::uint32_t avail = ctx.cluster().free_gpus();
  Time shadow = Time::max();
  std::uint32_t extra = 0;
  for (const auto& [end, n] : ends) {
    avail += n;
    if (avail >= head.spec.n_gpus) {
      shadow = end;
      extra = avail - head.spec.n_gpus;
      break;
    }
  }
  // Backfill: later jobs that fit now and either end before the shadow time or use only spare GPUs.
  for (std::size_t k = 1; k < q.size(); ++k) {
    const Job& job = ctx.job(q[k]);
    const bool ends_in_time = shadow == Time::max() || now + estimated_runtime(job, source_) <= shadow;
    if (!ends_in_time && job.spec.n_gpus > extra) continue;
    auto p = ctx.place(q[k]);
    if (!p) continue;
    if (!ends_in_time) extra -= job.spec.n_gpus;
    ctx.start(q[k], std::move(*p));
  }
}

void PowerCapScheduler::schedule(SchedulerContext& ctx) {
  const FleetPower fp = ctx.fleet_power();
  double peak = predicted_peak_facility_W(ctx);
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

void CarbonAwareScheduler::schedule(SchedulerContext& ctx) {
  const Time now = ctx.now();
  const bool low = signal_->at(now.seconds()) <= threshold_;
  Time next_wake = Time::max();
  std::vector<JobIndex> urgent, ready;
  // Holds: every deferred job still waiting needs its GPUs free at its latest start (urgent ones: now).
  std::vector<std::pair<Time, std::uint32_t>> holds_needed;
  for (JobIndex j : queue_copy(ctx)) {
    const Job& job = ctx.job(j);
    if (job.spec.deferrable && job.spec.deadline_s && !low) {
      const Time latest =
          Time::from_ns(Time::from_seconds(*job.spec.deadline_s).ns() - job.predicted_runtime().ns());
      if (now < latest) {
        next_wake = std::min(next_wake, latest);
        holds_needed.emplace_back(latest, job.spec.n_gpus);
        continue;
      }
      urgent.push_back(j);  // out of slack: it goes first
      continue;
    }
    ready.push_back(j);
  }
  // Urgent deferred jobs first; one that cannot be placed holds its GPUs from now.
  for (JobIndex j : urgent) {
    if (auto p = ctx.place(j))
      ctx.start(j, std::move(*p));
    else
      holds_needed.emplace_back(now, ctx.job(j).spec.n_gpus);
  }
  // Conservative backfilling against the holds: a job starts now only if, at every hold before its
  // estimated end, the GPUs then free (free now, plus those of running jobs estimated to have ended)
  // still cover the holds due by then. Only the earliest kMaxHolds holds are kept (a pass stays cheap).
  constexpr std::size_t kMaxHolds = 64;
  struct Hold {
    Time at;
    double slack;  ///< GPUs free at `at` minus the GPUs of every hold due by `at`
  };
  std::sort(holds_needed.begin(), holds_needed.end());
  if (holds_needed.size() > kMaxHolds) holds_needed.resize(kMaxHolds);
  std::vector<Hold> holds;
  if (!holds_needed.empty()) {
    std::vector<std::pair<Time, std::uint32_t>> ends;
    for (JobIndex j : ctx.running()) {
      const Job& r = ctx.job(j);
      ends.emplace_back(std::max(now, r.start + r.expected_runtime()),
                        static_cast<std::uint32_t>(r.gpus.size()));
    }
    std::sort(ends.begin(), ends.end());
    double free_then = ctx.cluster().free_gpus(), due = 0.0;
    std::size_t e = 0;
    for (const auto& [at, n] : holds_needed) {
      while (e < ends.size() && ends[e].first <= at) free_then += ends[e++].second;
      due += n;
      holds.push_back({at, free_then - due});
    }
  }
  // First come, first served among the rest (the first that cannot be placed, or would break a hold,
  // blocks those behind it).
  for (JobIndex j : ready) {
    const Job& job = ctx.job(j);
    const Time end = now + job.expected_runtime();
    const double n = job.spec.n_gpus;
    bool fits = true;
    for (const auto& h : holds)
      if (h.at < end && h.slack < n) fits = false;
    if (!fits) break;
    auto p = ctx.place(j);
    if (!p) break;
    ctx.start(j, std::move(*p));
    for (auto& h : holds)
      if (h.at < end) h.slack -= n;
  }
  if (next_wake == Time::max()) return;
  // Wake at the next sample where the intensity drops to the threshold, or the earliest latest start.
  const auto& t = signal_->times();
  const double period = signal_->period_s();
  const double now_s = now.seconds();
  for (int cycle = 0; cycle < (period > 0.0 ? 3 : 1); ++cycle) {
    const double offset = cycle * period;
    bool found = false;
    for (std::size_t i = 0; i < t.size(); ++i) {
      const double ts = t[i] + offset;
      if (ts <= now_s) continue;
      if (ts >= next_wake.seconds()) break;
      if (signal_->values()[i] <= threshold_) {
        next_wake = Time::from_seconds(ts);
        found = true;
        break;
      }
    }
    if (found) break;
  }
  ctx.wake_at(next_wake);
}

void ConsolidatingScheduler::schedule(SchedulerContext& ctx) {
  const Cluster& c = ctx.cluster();
  const Time now = ctx.now();
  if (idle_since_.empty()) idle_since_.assign(c.nodes(), Time::zero());
  fifo_pass(ctx);
  if (!ctx.queue().empty()) {
    // The head waits: wake sleeping nodes until enough GPUs are (or will be) powered for it.
    const Job& head = ctx.job(ctx.queue().front());
    std::uint32_t coming = c.free_gpus();
    for (NodeIndex n = 0; n < c.nodes(); ++n)
      if (ctx.node_power(n) == NodePower::waking) coming += c.gpus_on(n);
    for (NodeIndex n = 0; n < c.nodes() && coming < head.spec.n_gpus; ++n) {
      if (ctx.node_power(n) != NodePower::sleeping) continue;
      ctx.wake_node(n, latency_, wake_J_);
      ++wakes_;
      coming += c.gpus_on(n);
    }
  }
  // Idle powered nodes sleep after the timeout, but only while nothing waits (a waiting job may need them).
  Time next = Time::max();
  for (NodeIndex n = 0; n < c.nodes(); ++n) {
    const bool idle = ctx.node_power(n) == NodePower::on && c.free_gpus(n) == c.gpus_on(n);
    if (!idle) {
      idle_since_[n] = Time::max();
      continue;
    }
    if (idle_since_[n] == Time::max()) idle_since_[n] = now;
    const Time due = idle_since_[n] + timeout_;
    if (due <= now) {
      // Due: sleep now if nothing waits; otherwise the next arrival or finish brings another pass.
      if (ctx.queue().empty()) {
        ctx.sleep_node(n, sleep_W_);
        ++sleeps_;
        idle_since_[n] = Time::max();
      }
    } else {
      next = std::min(next, due);
    }
  }
  if (next != Time::max()) ctx.wake_at(next);
}

std::vector<std::pair<std::string, double>> ConsolidatingScheduler::metrics() const {
  return {{"node_sleeps", static_cast<double>(sleeps_)}, {"node_wakes", static_cast<double>(wakes_)}};
}

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
        if (job.power_cap_W > 0.0 && job.power_cap_W <= cap_W_) continue;
        const double before = job.power_cap_W;
        ctx.set_power_cap(j, cap_W_);  // accounts the job's time so far first
        capped_.push_back({j, before, ctx.job(j).capped_gpu_seconds});
      }
    }
  }
  // Pausing: the whole action under "pause", the fallback under "cap" when the floor is not enough.
  for (auto it = running.rbegin(); it != running.rend() && predicted_peak_facility_W(ctx) > target_W_; ++it) {
    if (ctx.job(*it).paused) continue;
    ctx.pause(*it);
    paused_.push_back(*it);
  }
}

void DemandResponseScheduler::restore(SchedulerContext& ctx) {
  restored_ = true;
  const Time now = ctx.now();
  for (JobIndex j : paused_) {
    const Job& job = ctx.job(j);
    if (job.state != JobState::running || !job.paused) continue;
    lost_gpu_s_ += static_cast<double>(job.gpus.size()) * (now - shed_at_).seconds();
    ctx.resume(j);
  }
  for (const auto& c : capped_) {
    const Job& job = ctx.job(c.job);
    if (job.state == JobState::running) ctx.set_power_cap(c.job, c.cap_before);  // accounts the capped time
    lost_gpu_s_ += job.capped_gpu_seconds - c.lost_before;
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
    const bool capped = cap_W_ > 0.0 && !(job.power_cap_W > 0.0 && job.power_cap_W <= cap_W_);
    // At the event's cap when it will start under it.
    const double inc =
        job.spec.n_gpus * peak_increment_per_gpu_W(job, fp.gpu_idle_W, capped ? cap_W_ : 0.0) * fp.pue;
    if (peak + inc > target_W_) break;
    auto p = ctx.place(j);
    if (!p) break;
    if (capped) {
      capped_.push_back({j, job.power_cap_W, job.capped_gpu_seconds});
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

namespace {

EstimateSource estimate_source(const workloads::SchedulerConfig& c) {
  const std::string s = c.params.get_string("estimate", "predictor");
  if (s == "predictor") return EstimateSource::predictor;
  if (s == "user") return EstimateSource::user;
  throw workloads::ConfigError(c.params.where_of("estimate"), "scheduler.estimate",
                               fmt::format("'{}' is not predictor or user", s));
}

}  // namespace

std::vector<SchedulerEntry> policy_scheduler_entries() {
  using workloads::SchedulerConfig;
  return {
      {"sjf", "shortest predicted job first; params: estimate = predictor|user",
       [](const SchedulerConfig& c) {
         c.params.require_known({"estimate"});
         return std::make_unique<SjfScheduler>(estimate_source(c));
       }},
      {"easy", "EASY backfilling with a reservation for the queue head; params: estimate = predictor|user",
       [](const SchedulerConfig& c) {
         c.params.require_known({"estimate"});
         return std::make_unique<EasyBackfillScheduler>(estimate_source(c));
       }},
      {"powercap",
       "facility power cap: start only under cap_W (W, required); mode = queue|gpu_cap, min_cap_fraction "
       "(0.5)",
       [](const SchedulerConfig& c) -> std::unique_ptr<Scheduler> {
         c.params.require_known({"cap_W", "mode", "min_cap_fraction"});
         if (!c.params.has("cap_W"))
           throw workloads::ConfigError(c.policy_origin, "scheduler.cap_W",
                                        "missing (the facility power cap, W)");
         const std::string mode = c.params.get_string("mode", "queue");
         if (mode != "queue" && mode != "gpu_cap")
           throw workloads::ConfigError(c.params.where_of("mode"), "scheduler.mode",
                                        fmt::format("'{}' is not queue or gpu_cap", mode));
         return std::make_unique<PowerCapScheduler>(c.params.get_positive("cap_W", 1.0), mode == "gpu_cap",
                                                    c.params.get_double("min_cap_fraction", 0.5));
       }},
      {"carbon",
       "carbon-aware deferral of deferrable jobs within their deadlines; needs [grid.carbon]; params: "
       "threshold "
       "(signal units; default its mean)",
       [](const SchedulerConfig& c) -> std::unique_ptr<Scheduler> {
         c.params.require_known({"threshold"});
         if (!c.carbon)
           throw workloads::ConfigError(c.policy_origin, "scheduler.policy",
                                        "the carbon policy needs a carbon signal: add [grid.carbon]");
         const auto& s = *c.carbon;
         const double span = s.times().back() - s.times().front();
         const double mean = span > 0.0 ? s.mean(s.times().front(), s.times().back()) : s.values().front();
         return std::make_unique<CarbonAwareScheduler>(c.carbon, c.params.get_double("threshold", mean));
       }},
      {"consolidate",
       "energy-aware consolidation: idle nodes sleep; params: idle_timeout_s (600), sleep_W (20), "
       "wake_latency_s "
       "(120), wake_energy_J (30000)",
       [](const SchedulerConfig& c) {
         c.params.require_known({"idle_timeout_s", "sleep_W", "wake_latency_s", "wake_energy_J"});
         return std::make_unique<ConsolidatingScheduler>(
             c.params.get_double("idle_timeout_s", 600.0), c.params.get_double("sleep_W", 20.0),
             c.params.get_double("wake_latency_s", 120.0), c.params.get_double("wake_energy_J", 30000.0));
       }},
      {"dr",
       "demand response: facility at or under target_W between start_s and end_s; action = pause|cap "
       "(GPU caps, not below min_cap_fraction x TDP, default 0.3)",
       [](const SchedulerConfig& c) -> std::unique_ptr<Scheduler> {
         c.params.require_known({"start_s", "end_s", "target_W", "action", "min_cap_fraction"});
         for (const char* k : {"start_s", "end_s", "target_W"})
           if (!c.params.has(k))
             throw workloads::ConfigError(c.policy_origin, fmt::format("scheduler.{}", k), "missing");
         const std::string action = c.params.get_string("action", "pause");
         if (action != "pause" && action != "cap")
           throw workloads::ConfigError(c.params.where_of("action"), "scheduler.action",
                                        fmt::format("'{}' is not pause or cap", action));
         const double floor = c.params.get_double("min_cap_fraction", 0.3);
         if (!(floor > 0.0 && floor <= 1.0))
           throw workloads::ConfigError(c.params.where_of("min_cap_fraction"), "scheduler.min_cap_fraction",
                                        fmt::format("must be in (0, 1], got {}", floor));
         return std::make_unique<DemandResponseScheduler>(
             c.params.get_double("start_s", 0.0), c.params.get_double("end_s", 0.0),
             c.params.get_positive("target_W", 1.0),
             action == "cap" ? DemandResponseScheduler::Action::cap : DemandResponseScheduler::Action::pause,
             floor);
       }},
  };
}

// Defaults of the power-aware controls for contexts that do not offer them (test doubles).
FleetPower SchedulerContext::fleet_power() const {
  throw std::logic_error("fleet_power: not supported here");
}
std::span<const JobIndex> SchedulerContext::running() const {
  throw std::logic_error("running: not supported here");
}
double SchedulerContext::facility_power_W() const {
  throw std::logic_error("facility_power_W: not supported here");
}
void SchedulerContext::pause(JobIndex) {
  throw std::logic_error("pause: not supported here");
}
void SchedulerContext::resume(JobIndex) {
  throw std::logic_error("resume: not supported here");
}
void SchedulerContext::set_power_cap(JobIndex, double) {
  throw std::logic_error("set_power_cap: not supported here");
}
NodePower SchedulerContext::node_power(NodeIndex) const {
  return NodePower::on;
}
void SchedulerContext::sleep_node(NodeIndex, double) {
  throw std::logic_error("sleep_node: not supported here");
}
void SchedulerContext::wake_node(NodeIndex, Duration, double) {
  throw std::logic_error("wake_node: not supported here");
}

}  // namespace fleetwatt::sim
