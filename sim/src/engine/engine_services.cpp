// The engine's services: GPUs reserved in their node group, their draw moved through the power ledger
// interval by interval (see service_load.hpp).
#include <fmt/format.h>

#include "event_priorities.hpp"
#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/sim/engine/engine.hpp"

namespace fleetwatt::sim {

void Engine::start_services() {
  const auto& loads = setup_.services;
  services_.resize(loads.size());
  for (std::size_t s = 0; s < loads.size(); ++s) {
    const ServiceLoad& load = loads[s];
    FLEETWATT_ASSERT(
        load.group < layout_.groups().size() && load.gpus <= layout_.gpus(load.group),
        fmt::format("service {} asks for {} GPUs of group {}", load.name, load.gpus, load.group));
    FLEETWATT_ASSERT(load.interval > Duration::zero(), fmt::format("service {} has no interval", load.name));
    ServiceGpus& held = services_[s];
    const GpuIndex first = layout_.first_gpu(load.group);
    for (GpuIndex g = first; g < first + load.gpus; ++g) held.gpus.push_back(g);
    if (held.gpus.empty()) continue;
    groups_.allocate(kServiceOwner - static_cast<JobIndex>(s), held.gpus);
    site_.ledger().node_runs(held.gpus, held.runs);
    held.W = layout_.groups()[load.group].gpu.idle_W;
    // Before zero (the warm-up) the GPUs idle; the service's series starts with the window.
    queue_.schedule_at(
        Time::zero(), [this, s] { step_service(s, 0); }, kPhasePriority);
  }
}

void Engine::step_service(std::size_t s, std::size_t k) {
  const ServiceLoad& load = setup_.services[s];
  ServiceGpus& held = services_[s];
  const double W = k < load.gpu_W.size() ? load.gpu_W[k] : load.after_W;
  // Each interval's draw at its start; no GPU changes to the sink (a campus's service GPUs would write
  // one record each per interval), as a step-level job's segments.
  if (W != held.W) {
    site_.ledger().change_gpu_power(queue_.now(), held.gpus, held.runs, held.W, W, false);
    held.W = W;
  }
  if (k < load.gpu_W.size())
    queue_.schedule_at(
        Time::zero() + load.interval * static_cast<std::int64_t>(k + 1),
        [this, s, k] { step_service(s, k + 1); }, kPhasePriority);
}

}  // namespace fleetwatt::sim
