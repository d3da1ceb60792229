// What the policy files of sim/src/policies/ share privately: the queue helpers and the estimate parameter of
// sjf and easy, and each policy's registry entry, which scheduler_entries() collects by explicit calls.
#pragma once

#include <vector>

#include "fleetwatt/sim/policies/policies.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"

namespace fleetwatt::sim {

/// A copy of the queue, to iterate while starting jobs (starting one removes it from the queue).
std::vector<JobIndex> queue_copy(const SchedulerContext& ctx);
/// Starts queued jobs in order while they can be placed; stops at the first that cannot.
void fifo_pass(SchedulerContext& ctx);

/// sjf's and easy's `estimate` parameter, and its value.
const jobs::ParamSpec& estimate_param();
EstimateSource estimate_source(const jobs::ParamSet& params);

SchedulerEntry fifo_entry();
SchedulerEntry sjf_entry();
SchedulerEntry easy_entry();
SchedulerEntry powercap_entry();
SchedulerEntry carbon_entry();
SchedulerEntry consolidate_entry();
SchedulerEntry dr_entry();

}  // namespace fleetwatt::sim
