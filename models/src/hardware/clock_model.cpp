// The clock model under a power cap: its phase stretch and the fitted constants (clock_model_fit.cpp fits
// them).
#include "fleetwatt/models/hardware/clock_model.hpp"

#include <algorithm>

namespace fleetwatt::models {

double ClockModel::clock_fraction(double power_W, double cap_W, double tdp_W) const noexcept {
  if (!(cap_W > 0.0) || cap_W >= power_W) return 1.0;
  const double floor = floor_fraction * tdp_W;
  // A phase at or below the floor has nothing the clock can shed: it runs at its own pace.
  if (!(power_W > floor)) return 1.0;
  return std::clamp((cap_W - floor) / (power_W - floor), kMinClock, 1.0);
}

double ClockModel::stretch(double power_W, double cap_W, double tdp_W) const noexcept {
  const double f = clock_fraction(power_W, cap_W, tdp_W);
  return clock_bound_share / f + (1.0 - clock_bound_share);
}

const ClockModel& clock_model() noexcept {
  // The member defaults: fit_clock_model on the three Zeus sweeps, each against its own board's TDP
  // (tests/models/clock_model_test.cpp refits and checks them).
  static const ClockModel fitted{};
  return fitted;
}

}  // namespace fleetwatt::models
