// Strict FIFO: head-of-line blocking is the point (it is the baseline the other policies improve on).
#include "fleetwatt/sim/scheduler.hpp"

namespace fleetwatt::sim {

void FifoScheduler::schedule(SchedulerContext& ctx) {
  while (!ctx.queue().empty()) {
    const JobIndex head = ctx.queue().front();
    auto placement = ctx.place(head);
    if (!placement) return;
    ctx.start(head, std::move(*placement));
  }
}

}  // namespace fleetwatt::sim
