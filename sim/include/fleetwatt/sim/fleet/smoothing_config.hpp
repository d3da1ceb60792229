// GPU power smoothing ([smoothing]): the keys, their declared defaults (the one declaration
// the scenario check, `fleetwatt list` and docs/components.md's table all read) and what they stand for. The
// engine's side is sim/fleet/power_smoothing.hpp.
//
// The controls are NVIDIA's (NVML "Power Smoothing" profile parameters, Blackwell: percent TMP floor, ramp-up
// rate in W/s, ramp-down rate in W/s, ramp-down hysteresis in ms; see also Choukse et al., "Power
// Stabilization for AI Training Datacenters", arXiv 2508.14318, whose software-only mitigation fills the
// communication phases with dummy work: our "burn").
#pragma once

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/param_set.hpp"
#include "fleetwatt/jobs/smoothing_mode.hpp"

namespace fleetwatt::sim {

/// [smoothing]: fleet-wide, per running job; a job's own `smoothing` mode ([[workload.jobs]]) overrides the
/// mode, with these figures.
struct SmoothingConfig {
  jobs::SmoothingMode mode = jobs::SmoothingMode::off;
  double floor_fraction = 0.8;       ///< of the GPU's TDP: a running job's GPUs never draw less
  double ramp_up_w_per_s = 1000.0;   ///< per GPU: how fast the smoothing floor follows a rise of the work
  double ramp_down_w_per_s = 100.0;  ///< per GPU: how fast it lets go after a drop
  double hysteresis_s = 1.0;         ///< how long a drop is held before the ramp down starts
  core::SourceLocation where;        ///< the [smoothing] table
};

/// The [smoothing] keys with their defaults, units and one-line docs.
[[nodiscard]] const core::ParamSpecs& smoothing_params();

/// A [smoothing] table's keys (already gathered into a core::ParamSet), checked against smoothing_params()
/// and read: floor_fraction in [0, 1], rates > 0, hysteresis >= 0, a known mode.
[[nodiscard]] SmoothingConfig parse_smoothing_config(const core::ParamSet& raw);

}  // namespace fleetwatt::sim
