// Strict FIFO: head-of-line blocking is the point (it is the baseline the other policies improve on). Also
// the queue helpers other policies share: a FIFO pass, and a copy of the queue to iterate while starting.
#include "fleetwatt/sim/policies/policies.hpp"
#include "policy_support.hpp"

namespace fleetwatt::sim {

void FifoScheduler::schedule(SchedulerContext& ctx) {
  while (!ctx.queue().empty()) {
    const JobIndex head = ctx.queue().front();
    auto placement = ctx.place(head);
    if (!placement) return;
    ctx.start(head, std::move(*placement));
  }
}

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

SchedulerEntry fifo_entry() {
  return {
      "fifo",
      "first in, first out; the queue head blocks everything behind it",
      {},
      [](const jobs::ParamSet&, const sim::SchedulerConfig&) { return std::make_unique<FifoScheduler>(); }};
}

}  // namespace fleetwatt::sim
