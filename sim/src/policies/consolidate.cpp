// Energy-aware consolidation: FIFO on the powered nodes; idle nodes sleep after a timeout and wake when
// the queue head needs them.
#include <algorithm>

#include "fleetwatt/sim/policies/policies.hpp"
#include "policy_support.hpp"

namespace fleetwatt::sim {

void ConsolidatingScheduler::schedule(SchedulerContext& ctx) {
  const Cluster& c = ctx.cluster();
  const Time now = ctx.now();
  // Idle since 0, or with a warm-up since its first pass.
  if (idle_since_.empty()) idle_since_.assign(c.nodes(), std::min(Time::zero(), ctx.now()));
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

SchedulerEntry consolidate_entry() {
  using jobs::ParamType;
  return {
      "consolidate",
      "energy-aware consolidation: idle nodes sleep",
      {
          {"idle_timeout_s", ParamType::number, 600.0, "", "s", "a node idle this long sleeps", {}},
          {"sleep_w", ParamType::number, 20.0, "", "W", "a sleeping node's power", {"sleep_W"}},
          {"wake_latency_s", ParamType::number, 120.0, "", "s", "time for a node to wake", {}},
          {"wake_energy_j", ParamType::number, 30000.0, "", "J", "energy of one wake-up", {"wake_energy_J"}},
      },
      // Each is zero or more: a negative sleep power (-1e300, found by the generated scenarios) made the IT
      // energy negative.
      [](const jobs::ParamSet& p, const sim::SchedulerConfig&) {
        return std::make_unique<ConsolidatingScheduler>(
            p.get_non_negative("idle_timeout_s"), p.get_non_negative("sleep_w"),
            p.get_non_negative("wake_latency_s"), p.get_non_negative("wake_energy_j"));
      }};
}

}  // namespace fleetwatt::sim
