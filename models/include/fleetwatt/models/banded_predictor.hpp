// Low/mid/high runs: a predictor wrapped so that every job's phase powers sit at one end of its own
// uncertainty band. Running a scenario three times (band = low, mid, high) brackets the fleet's energy.
#pragma once

#include <memory>

#include "fleetwatt/models/power_predictor.hpp"
#include "fleetwatt/workloads/scenario.hpp"

namespace fleetwatt::models {

class BandedPredictor final : public PowerPredictor {
 public:
  BandedPredictor(std::unique_ptr<PowerPredictor> inner, workloads::Band band)
      : inner_(std::move(inner)), band_(band) {}

  [[nodiscard]] std::string_view name() const override { return inner_->name(); }
  /// The inner prediction with both phase powers scaled by (1 - low) or (1 + high); durations unchanged,
  /// so the epoch's energy moves by exactly the band.
  [[nodiscard]] EpochPlan plan(const JobSpec& job, const GpuHardware& gpu) const override;
  [[nodiscard]] UncertaintyBand uncertainty(const JobSpec& job, const GpuHardware& gpu) const override {
    return inner_->uncertainty(job, gpu);
  }

 private:
  std::unique_ptr<PowerPredictor> inner_;
  workloads::Band band_;
};

/// The scenario's predictor at its band: `inner` itself for mid, wrapped otherwise.
[[nodiscard]] std::unique_ptr<PowerPredictor> at_band(std::unique_ptr<PowerPredictor> inner,
                                                      workloads::Band band);

}  // namespace fleetwatt::models
