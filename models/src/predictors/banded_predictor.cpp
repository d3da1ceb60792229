// Shifting predictions to the ends of their uncertainty bands.
#include "fleetwatt/models/predictors/banded_predictor.hpp"

namespace fleetwatt::models {

EpochPlan BandedPredictor::plan(const JobSpec& job, const GpuHardware& gpu) const {
  EpochPlan p = inner_->plan(job, gpu);
  if (band_ == models::Band::mid) return p;
  // A calibrated band moves time and power to their own ends (their product is the energy band).
  const PredictionBand b = inner_->band(job, gpu);
  if (b.level > 0.0) {
    const bool low = band_ == models::Band::low;
    p.each_part([&](jobs::EpochPart& part) {
      part.s *= low ? b.time_low : b.time_high;
      part.W *= low ? b.power_low : b.power_high;
    });
    return p;
  }
  const UncertaintyBand u = inner_->uncertainty(job, gpu);
  const double factor = band_ == models::Band::low ? 1.0 - u.low : 1.0 + u.high;
  p.each_part([&](jobs::EpochPart& part) { part.W *= factor; });
  return p;
}

std::unique_ptr<PowerPredictor> at_band(std::unique_ptr<PowerPredictor> inner, models::Band band) {
  if (band == models::Band::mid) return inner;
  return std::make_unique<BandedPredictor>(std::move(inner), band);
}

}  // namespace fleetwatt::models
