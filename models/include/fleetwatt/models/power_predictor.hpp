// The seam between workload metadata and the simulator: a predictor turns a job and a GPU into the per-GPU
// square wave of one epoch. Every predictor (table, datasheet/power-law, component, fitted symbolic
// regression) implements this interface and registers in predictor_registry.
#pragma once

#include <string>
#include <string_view>

#include "fleetwatt/models/gpu_hardware.hpp"
#include "fleetwatt/workloads/job_spec.hpp"

namespace fleetwatt::models {

using workloads::JobSpec;
using workloads::PhaseProfile;

/// Relative uncertainty of a prediction: energy lies in [mid * (1 - low), mid * (1 + high)].
struct UncertaintyBand {
  double low = 0.0;
  double high = 0.0;
};

class PowerPredictor {
 public:
  virtual ~PowerPredictor() = default;

  /// Registry name of this predictor ("table", ...).
  [[nodiscard]] virtual std::string_view name() const = 0;

  /// Per-GPU phase profile of one epoch of `job` on `gpu`. Throws workloads::ConfigError (located at the
  /// job's class_origin) when the job lacks what this predictor needs.
  [[nodiscard]] virtual PhaseProfile predict(const JobSpec& job, const GpuHardware& gpu) const = 0;

  /// Relative uncertainty of predict()'s energy for this job.
  [[nodiscard]] virtual UncertaintyBand uncertainty(const JobSpec& /*job*/,
                                                    const GpuHardware& /*gpu*/) const {
    return {};
  }
};

}  // namespace fleetwatt::models
