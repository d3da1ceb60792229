// EASY backfilling (Lifka 1995): a reservation for the queue head at its shadow time, backfilling behind
// it with jobs that end in time or use only spare GPUs.
#include <algorithm>

#include "fleetwatt/sim/policies/policies.hpp"
#include "policy_support.hpp"

namespace fleetwatt::sim {

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

SchedulerEntry easy_entry() {
  return {"easy",
          "EASY backfilling with a reservation for the queue head",
          {estimate_param()},
          [](const jobs::ParamSet& p, const sim::SchedulerConfig&) {
            return std::make_unique<EasyBackfillScheduler>(estimate_source(p));
          }};
}

}  // namespace fleetwatt::sim
