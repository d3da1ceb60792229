// A service's load as the engine plays it: the GPUs a service holds in its node group and what each of them
// draws, interval by interval, from the run's first instant. The service's run (exact or fleet mode,
// sim/serving/) is worked out before the engine starts; the engine reserves the GPUs (no job is placed on
// them) and moves their draw through the power ledger at each interval, so the service's power reaches the
// nodes, the facility and the grid meter as the jobs' does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleetwatt/core/time.hpp"

namespace fleetwatt::sim {

struct ServiceLoad {
  std::string name;
  std::uint32_t group = 0;  ///< the node group whose first `gpus` GPUs it holds
  std::uint32_t gpus = 0;
  Duration interval = Duration::from_ns(1'000'000'000);
  /// Each GPU's mean draw over interval k, from time zero (W).
  std::vector<double> gpu_W;
  /// Each GPU's draw after the series ends: the model held at the resident floor (W).
  double after_W = 0.0;
};

}  // namespace fleetwatt::sim
