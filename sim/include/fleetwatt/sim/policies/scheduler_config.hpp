// A scenario's [scheduler] section as the policy registries read it: the scheduling and placement policies
// by name, their parameters, the other policies' tables (for comparisons) and the carbon signal that
// carbon-aware policies follow.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/param_set.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"

namespace fleetwatt::sim {

struct SchedulerConfig {
  std::shared_ptr<const sim::GridSignal>
      carbon;  ///< the scenario's [grid.carbon] signal, for carbon-aware policies
  std::string policy = "fifo";
  core::SourceLocation policy_origin;
  std::string placement = "first_fit";
  core::SourceLocation placement_origin;
  core::ParamSet params;
  /// [scheduler.<policy>] tables: parameters of policies other than the chosen one (`fleetwatt compare`).
  std::map<std::string, core::ParamSet> policy_params;
};

}  // namespace fleetwatt::sim
