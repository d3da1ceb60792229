// The facility's grid meter: cuts facility power (IT power x PUE, piecewise constant between events) at the
// facility series' interval boundaries (and, with weather-driven cooling, at weather steps) and integrates,
// exactly, each interval's carbon (kg) against the carbon-intensity signal (or the facility's constant
// factor) and its cost against the price signal. The run's totals are the sums of those interval values, so
// series and totals always agree.
#pragma once

#include <functional>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"
#include "fleetwatt/sim/power/power_ledger.hpp"

namespace fleetwatt::sim {

struct GridMeterConfig {
  Duration interval = Duration::from_ns(1'000'000'000);  ///< the facility series' interval
  double pue = 1.0;
  const sim::GridSignal* carbon = nullptr;  ///< g/kWh; null: `carbon_kg_per_J` throughout
  double carbon_kg_per_J = 0.0;
  const sim::GridSignal* price = nullptr;  ///< currency per MWh; null: no cost
  /// Weather-driven cooling: facility power from the model, spans cut at its weather steps. Null: IT x pue.
  const FacilityModel* facility = nullptr;
};

class GridMeter {
 public:
  /// `on_interval(start, carbon_kg, cost)` is called for each completed interval, in time order.
  GridMeter(const GridMeterConfig& config, std::function<void(Time, double, double)> on_interval);

  /// IT power `it_W` held over [t0, t1); spans must follow each other without gaps.
  void add(Time t0, Time t1, double it_W);
  /// Reports the last, partial interval when `end` is not on a boundary; nothing may follow.
  void close(Time end);

  [[nodiscard]] double carbon_kg() const noexcept { return carbon_total_.value(); }
  [[nodiscard]] double cost() const noexcept { return cost_total_.value(); }

 private:
  void integrate(Time t0, Time t1, double facility_W);
  void emit();

  GridMeterConfig config_;
  std::function<void(Time, double, double)> on_interval_;
  Time start_ = Time::zero();  ///< of the interval in progress
  EnergySum carbon_, cost_;    ///< of the interval in progress
  EnergySum carbon_total_, cost_total_;
  std::size_t weather_step_ = 0;  ///< the weather step the spans have reached (weather-driven cooling)
};

}  // namespace fleetwatt::sim
