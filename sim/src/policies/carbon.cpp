// Carbon-aware deferral: deferrable jobs wait for low carbon intensity within their deadlines, holding
// their GPUs for their latest start (conservative backfilling).
#include <algorithm>

#include "fleetwatt/sim/policies/policies.hpp"
#include "policy_support.hpp"

namespace fleetwatt::sim {

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

SchedulerEntry carbon_entry() {
  return {"carbon",
          "carbon-aware deferral of deferrable jobs within their deadlines; needs [grid.carbon]",
          {{"threshold",
            jobs::ParamType::number,
            {},
            "the signal's mean",
            "signal units",
            "deferrable jobs wait while the intensity is above it",
            {}}},
          [](const jobs::ParamSet& p, const sim::SchedulerConfig& c) -> std::unique_ptr<Scheduler> {
            if (!c.carbon)
              throw jobs::ConfigError(c.policy_origin, "scheduler.policy",
                                      "the carbon policy needs a carbon signal: add [grid.carbon]");
            const auto& s = *c.carbon;
            const double span = s.times().back() - s.times().front();
            const double mean = span > 0.0 ? s.mean(s.times().front(), s.times().back()) : s.values().front();
            return std::make_unique<CarbonAwareScheduler>(c.carbon, p.get_double("threshold", mean));
          }};
}

}  // namespace fleetwatt::sim
