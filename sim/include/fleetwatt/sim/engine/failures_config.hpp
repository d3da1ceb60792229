// Job interruptions ([failures]): the keys, their declared defaults (the one declaration the scenario check,
// `fleetwatt list` and docs/components.md's table all read), and the default rate's source. The engine's side
// is sim/src/engine/engine_failures.cpp.
#pragma once

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/param_set.hpp"

namespace fleetwatt::sim {

/// Unexpected interruptions per GPU-hour of a synchronous training job, from the Llama 3 report (Dubey et
/// al. 2024, "The Llama 3 Herd of Models", section 3.3.4): 419 unexpected interruptions in a 54-day
/// snapshot of pre-training on 16,384 H100 GPUs, so 419 / (54 x 24 x 16,384) = 419 / 21,233,664
/// = 1.9733e-5 per GPU-hour (one every 3.09 h for the whole 16,384-GPU job).
inline constexpr double kLlama3InterruptionsPerGpuHour = 419.0 / (54.0 * 24.0 * 16384.0);

/// [failures]: interruptions of running jobs, off unless enabled.
struct FailureConfig {
  bool enabled = false;
  double rate_per_gpu_hour = kLlama3InterruptionsPerGpuHour;  ///< a job on n GPUs fails at n x this
  double restart_delay_s = 600.0;  ///< detection, rescheduling and relaunch: the job's GPUs at idle
  double restart_ramp_s = 120.0;   ///< reload and warm-up near the floor (at least the checkpoint time)
  core::SourceLocation where;      ///< the [failures] table
};

/// The [failures] keys with their defaults, units and one-line docs.
[[nodiscard]] const core::ParamSpecs& failure_params();

/// A [failures] table's keys (already gathered into a core::ParamSet), checked against failure_params() and
/// read.
[[nodiscard]] FailureConfig parse_failure_config(const core::ParamSet& raw);

}  // namespace fleetwatt::sim
