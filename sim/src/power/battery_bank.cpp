// Grid import through the site's batteries, and carbon and cost re-priced on it (see battery_bank.hpp).
#include "fleetwatt/sim/power/battery_bank.hpp"

#include <algorithm>

namespace fleetwatt::sim {

BatteryBank::BatteryBank(BatteryBankConfig config)
    : MeterFilter({config.carbon, config.carbon_kg_per_J, config.price}), config_(std::move(config)) {
  for (const auto& b : config_.batteries) {
    batteries_.emplace_back(b);
    capacity_J_ += b.energy_J;
    initial_J_ += batteries_.back().stored_J();
  }
}

double BatteryBank::loss_J() const {
  double j = 0.0;
  for (const auto& b : batteries_) j += b.loss_J();
  return j;
}

double BatteryBank::stored_change_J() const {
  double j = 0.0;
  for (const auto& b : batteries_) j += b.stored_J();
  return j - initial_J_;
}

void BatteryBank::facility_sample(Time start, double it_W, double facility_W, double energy_J) {
  const double dt = (std::min(start + config_.interval, config_.horizon) - start).seconds();
  const double t0 = start.seconds(), t1 = t0 + dt;
  // The interval's mean carbon intensity (g/kWh), for carbon-mode batteries.
  const double intensity = config_.carbon ? config_.carbon->mean(t0, t1) : config_.carbon_kg_per_J * 3.6e9;
  double import_W = facility_W, stored = 0.0;
  for (auto& b : batteries_) {
    import_W = b.step(import_W, dt, intensity).import_W;
    stored += b.stored_J();
  }
  import_J_.add(import_W * dt);
  demand_J_.add(facility_W * dt);
  peak_import_W_ = std::max(peak_import_W_, import_W);
  if (config_.import_limit_W > 0.0 && import_W > config_.import_limit_W * (1.0 + 1e-12)) over_s_ += dt;
  priced_interval(start, dt, import_W - facility_W);
  if (down_) {
    down_->facility_sample(start, it_W, facility_W, energy_J);
    down_->battery_sample(start, import_W, facility_W - import_W, stored / capacity_J_);
  }
}

}  // namespace fleetwatt::sim
