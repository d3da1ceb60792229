// The seam between workload metadata and the simulator: a predictor turns a job and a GPU into the plan of
// one epoch (compute, exposed communication, exposed I/O, checkpoint: each a duration at a per-GPU power,
// plus the metadata its traffic comes from). The engine runs the plan; a network model re-times its comm
// and io parts. Every predictor (table, datasheet/power-law, component, fitted symbolic
// regression) implements this interface and registers in predictor_registry.
#pragma once

#include <string>
#include <string_view>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"

namespace fleetwatt::models {

using jobs::EpochPart;
using jobs::EpochPlan;
using jobs::JobSpec;
using jobs::PartKind;
using jobs::PhaseProfile;

/// Relative uncertainty of a prediction: energy lies in [mid * (1 - low), mid * (1 + high)].
struct UncertaintyBand {
  double low = 0.0;
  double high = 0.0;
};

/// A calibrated prediction band: with probability `level`, the measured time per epoch lies in
/// [epoch_s x time_low, epoch_s x time_high] and the measured average power in [mean_W x power_low,
/// mean_W x power_high] (factors around the prediction; level 0 means the predictor has no calibrated band).
struct PredictionBand {
  double level = 0.0;
  double time_low = 1.0, time_high = 1.0;
  double power_low = 1.0, power_high = 1.0;
};

class PowerPredictor {
 public:
  virtual ~PowerPredictor() = default;

  /// Registry name of this predictor ("table", ...).
  [[nodiscard]] virtual std::string_view name() const = 0;

  /// The plan of one epoch of `job` on `gpu` (per GPU). Throws jobs::ConfigError (located at the
  /// job's class_origin) when the job lacks what this predictor needs.
  [[nodiscard]] virtual EpochPlan plan(const JobSpec& job, const GpuHardware& gpu) const = 0;

  /// The plan's square-wave view (peak = compute + comm + io, valley = checkpoint).
  [[nodiscard]] PhaseProfile predict(const JobSpec& job, const GpuHardware& gpu) const {
    return plan(job, gpu).profile();
  }

  /// Relative uncertainty of predict()'s energy for this job.
  [[nodiscard]] virtual UncertaintyBand uncertainty(const JobSpec& /*job*/,
                                                    const GpuHardware& /*gpu*/) const {
    return {};
  }

  /// The calibrated band of predict()'s epoch time and average power for this job (level 0: none).
  [[nodiscard]] virtual PredictionBand band(const JobSpec& /*job*/, const GpuHardware& /*gpu*/) const {
    return {};
  }
};

}  // namespace fleetwatt::models
