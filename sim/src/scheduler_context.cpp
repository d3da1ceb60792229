// Defaults of SchedulerContext's power-aware controls, for contexts that do not offer them (test doubles):
// a policy that needs one fails loudly instead of silently doing nothing.
#include <stdexcept>

#include "fleetwatt/sim/scheduler.hpp"

namespace fleetwatt::sim {

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
