// Low/mid/high runs: a predictor wrapped so that every job's phase powers sit at one end of its own
// uncertainty band. Running a scenario three times (band = low, mid, high) brackets the fleet's energy.
#pragma once

#include <memory>

#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/models/predictors/predictor_config.hpp"

namespace fleetwatt::models {

class BandedPredictor final : public PowerPredictor {
 public:
  BandedPredictor(std::unique_ptr<PowerPredictor> inner, models::Band band)
      : inner_(std::move(inner)), band_(band) {}

  [[nodiscard]] std::string_view name() const override { return inner_->name(); }
  /// The inner prediction at one end of its calibrated band (every part's duration and power scaled by the
  /// band's time and power factors), or, for a predictor without one, with both phase powers scaled by
  /// (1 - low) or (1 + high) and durations unchanged; either way the epoch's energy moves by exactly the
  /// energy band uncertainty() states.
  [[nodiscard]] EpochPlan plan(const JobSpec& job, const GpuHardware& gpu) const override;
  [[nodiscard]] UncertaintyBand uncertainty(const JobSpec& job, const GpuHardware& gpu) const override {
    return inner_->uncertainty(job, gpu);
  }
  [[nodiscard]] PredictionBand band(const JobSpec& job, const GpuHardware& gpu) const override {
    return inner_->band(job, gpu);
  }

 private:
  std::unique_ptr<PowerPredictor> inner_;
  models::Band band_;
};

/// The scenario's predictor at its band: `inner` itself for mid, wrapped otherwise.
[[nodiscard]] std::unique_ptr<PowerPredictor> at_band(std::unique_ptr<PowerPredictor> inner,
                                                      models::Band band);

}  // namespace fleetwatt::models
