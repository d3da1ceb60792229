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

/// A service that absorbs the other GPUs' swings (synchronous training's step phases, checkpoints,
/// failures): every control period it moves its draw opposite to the other GPUs' departure from their
/// recent mean, running its work ahead of or behind its plan within a bound, and drifts back to the plan.
/// What it costs is that drift: its work runs up to latency_s of its planned power late.
struct AbsorbConfig {
  bool enabled = false;
  double gain = 1.0;       ///< share of the other GPUs' departure from their mean it takes up
  double latency_s = 1.0;  ///< the most its work runs ahead or behind: that many seconds of its planned power
  double control_s = 0.1;  ///< how often the controller acts at least
  /// After a change of the other GPUs' draw, the controller acts this much later (0: at once, as a
  /// controller told of the training steps' phases would).
  double reaction_s = 0.0;
  bool on_change = true;   ///< act on the other GPUs' changes (false: every control_s only)
  double window_s = 10.0;  ///< the other GPUs' mean: an exponential average over this time
};

struct ServiceLoad {
  std::string name;
  std::uint32_t group = 0;  ///< the node group whose first `gpus` GPUs it holds
  std::uint32_t gpus = 0;
  core::Duration interval = core::Duration::from_ns(1'000'000'000);
  /// Each GPU's mean draw over interval k, from time zero (W).
  std::vector<double> gpu_W;
  /// Each GPU's draw after the series ends: the model held at the resident floor (W).
  double after_W = 0.0;
  /// Share of its replicas serving in interval k (autoscaling parks the others); empty: all of them.
  std::vector<double> active_share;
  double floor_W = 0.0;   ///< a serving GPU's least draw, its model resident (absorbing's lower bound)
  double max_W = 0.0;     ///< a serving GPU's most (its board's limit: absorbing's upper bound)
  double parked_W = 0.0;  ///< a parked replica's GPU
  AbsorbConfig absorb;
};

/// What a service drew in a run, as the ledger integrated it.
struct ServiceOutcome {
  std::vector<double> power_W;  ///< the service's GPUs' mean power over each interval of [0, horizon)
  double energy_J = 0.0;        ///< over [0, horizon)
  /// Absorbing: its work's time-mean and largest lag behind the plan (s of planned power), and what it ran
  /// ahead (+) or behind (-) at the horizon (J).
  double mean_lag_s = 0.0, max_lag_s = 0.0, bank_J = 0.0;
  /// Absorbing: the lag's mean over each interval of [0, horizon) (empty otherwise): how late the work, and
  /// so the tokens, of the plan's time came out.
  std::vector<double> lag_s;
};

}  // namespace fleetwatt::sim
