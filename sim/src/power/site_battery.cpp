// The site battery's per-interval control and its exact energy bookkeeping (see site_battery.hpp).
#include "fleetwatt/sim/power/site_battery.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fleetwatt::sim {

SiteBattery::SiteBattery(const BatteryConfig& config)
    : config_(config),
      eta_(std::sqrt(config.round_trip_efficiency)),
      stored_J_(config.soc_initial * config.energy_J) {
  if (!(config.energy_J > 0.0) || !(config.power_W > 0.0))
    throw std::invalid_argument("battery: energy and power must be positive");
  if (!(config.round_trip_efficiency > 0.0 && config.round_trip_efficiency <= 1.0))
    throw std::invalid_argument("battery: round-trip efficiency must be in (0, 1]");
  if (!(0.0 <= config.soc_min && config.soc_min <= config.soc_initial &&
        config.soc_initial <= config.soc_max && config.soc_max <= 1.0))
    throw std::invalid_argument("battery: need 0 <= soc_min <= soc_initial <= soc_max <= 1");
}

BatteryStep SiteBattery::step(double demand_W, double dt_s, double intensity) {
  const BatteryConfig& c = config_;
  // What the store allows over this interval, at the bus.
  const double max_discharge =
      std::min(c.power_W, std::max(0.0, stored_J_ - c.soc_min * c.energy_J) * eta_ / dt_s);
  const double max_charge =
      std::min(c.power_W, std::max(0.0, c.soc_max * c.energy_J - stored_J_) / (eta_ * dt_s));
  double charge = 0.0, discharge = 0.0;
  switch (c.mode) {
    case BatteryMode::peak_shave:
      if (demand_W > c.import_limit_W)
        discharge = std::min(demand_W - c.import_limit_W, max_discharge);
      else
        charge = std::min(c.import_limit_W - demand_W, max_charge);
      break;
    case BatteryMode::ramp_limit: {
      if (!has_previous_) break;  // the first interval sets the reference
      const double step = c.ramp_W_per_min * dt_s / 60.0;
      const double target = std::clamp(demand_W, previous_import_W_ - step, previous_import_W_ + step);
      if (target < demand_W)
        discharge = std::min(demand_W - target, max_discharge);
      else if (target > demand_W)
        charge = std::min(target - demand_W, max_charge);
      break;
    }
    case BatteryMode::carbon:
      if (intensity >= c.discharge_above_g_per_kwh)
        discharge = std::min(demand_W, max_discharge);  // no export
      else if (intensity <= c.charge_below_g_per_kwh)
        charge = c.import_limit_W > 0.0 ? std::min(max_charge, std::max(0.0, c.import_limit_W - demand_W))
                                        : max_charge;
      break;
  }
  BatteryStep s;
  s.charge_W = charge;
  s.discharge_W = discharge;
  s.import_W = demand_W + charge - discharge;
  const double in_J = charge * dt_s, out_J = discharge * dt_s;
  stored_J_ += eta_ * in_J - out_J / eta_;
  stored_J_ = std::clamp(stored_J_, 0.0, c.energy_J);  // rounding only: the limits above keep it inside
  s.loss_J = (1.0 - eta_) * in_J + (1.0 / eta_ - 1.0) * out_J;
  loss_J_ += s.loss_J;
  charged_J_ += in_J;
  discharged_J_ += out_J;
  s.soc = soc();
  has_previous_ = true;
  previous_import_W_ = s.import_W;
  return s;
}

}  // namespace fleetwatt::sim
