// The [failures] keys: declaration, check and reading (see failures_config.hpp).
#include "fleetwatt/sim/engine/failures_config.hpp"

namespace fleetwatt::sim {

using core::ParamSet;
using core::ParamSpec;
using core::ParamSpecs;
using core::ParamType;

const ParamSpecs& failure_params() {
  static const ParamSpecs specs{
      {"enabled", ParamType::boolean, false, "", "", "interrupt running jobs at the rate below", {}},
      {"rate_per_gpu_hour",
       ParamType::number,
       kLlama3InterruptionsPerGpuHour,
       "1.9733e-05 (Llama 3: 419 in 54 days on 16,384 GPUs)",
       "1/GPU-h",
       "interruptions per GPU-hour running; a job on n GPUs fails at n x this",
       {}},
      {"restart_delay_s",
       ParamType::number,
       600.0,
       "",
       "s",
       "after an interruption, the job's GPUs idle this long (detection, rescheduling, relaunch)",
       {}},
      {"restart_ramp_s",
       ParamType::number,
       120.0,
       "",
       "s",
       "then reload and warm-up at the checkpoint power, at least the job's checkpoint time",
       {}},
  };
  return specs;
}

FailureConfig parse_failure_config(const ParamSet& raw) {
  const ParamSet p = raw.checked(failure_params());
  FailureConfig c;
  c.where = p.where();
  c.enabled = p.get_bool("enabled");
  c.rate_per_gpu_hour = p.get_non_negative("rate_per_gpu_hour");
  c.restart_delay_s = p.get_non_negative("restart_delay_s");
  c.restart_ramp_s = p.get_non_negative("restart_ramp_s");
  return c;
}

}  // namespace fleetwatt::sim
