// Defaults of SchedulerContext's power-aware controls, for contexts that do not offer them (test doubles):
// a policy that needs one fails loudly instead of silently doing nothing.
#include <stdexcept>

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/sim/policies/scheduler.hpp"

namespace fleetwatt::sim {

FleetPower SchedulerContext::fleet_power() const {
  FLEETWATT_FAIL("fleet_power: not supported here");
}
std::span<const JobIndex> SchedulerContext::running() const {
  FLEETWATT_FAIL("running: not supported here");
}
double SchedulerContext::facility_power_W() const {
  FLEETWATT_FAIL("facility_power_W: not supported here");
}
void SchedulerContext::pause(JobIndex) {
  FLEETWATT_FAIL("pause: not supported here");
}
void SchedulerContext::resume(JobIndex) {
  FLEETWATT_FAIL("resume: not supported here");
}
void SchedulerContext::set_power_cap(JobIndex, double) {
  FLEETWATT_FAIL("set_power_cap: not supported here");
}
NodePower SchedulerContext::node_power(NodeIndex) const {
  return NodePower::on;
}
void SchedulerContext::sleep_node(NodeIndex, double) {
  FLEETWATT_FAIL("sleep_node: not supported here");
}
void SchedulerContext::wake_node(NodeIndex, Duration, double) {
  FLEETWATT_FAIL("wake_node: not supported here");
}

}  // namespace fleetwatt::sim
