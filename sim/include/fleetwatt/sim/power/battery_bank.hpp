// The site's batteries between the facility and the grid meter's point of interconnection: a meter filter
// (meter_filter.hpp) in front of the result sink that runs each facility interval's mean demand through
// the batteries (site_battery.hpp; several apply in order, each to the import the one before leaves),
// reports grid import, battery power and state of charge beside the facility series, and has each
// interval's carbon and cost charged on grid import instead of facility demand.
#pragma once

#include <vector>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"
#include "fleetwatt/sim/power/meter_filter.hpp"
#include "fleetwatt/sim/power/power_ledger.hpp"
#include "fleetwatt/sim/power/site_battery.hpp"

namespace fleetwatt::sim {

struct BatteryBankConfig {
  std::vector<BatteryConfig> batteries;
  double import_limit_W = 0.0;  ///< 0: none (hours over it are then 0)
  Duration interval = Duration::from_ns(1'000'000'000);
  Time horizon = Time::zero();
  const sim::GridSignal* carbon = nullptr;  ///< g/kWh; null: carbon_kg_per_J
  double carbon_kg_per_J = 0.0;
  const sim::GridSignal* price = nullptr;  ///< currency/MWh; null: no cost
};

class BatteryBank final : public MeterFilter {
 public:
  explicit BatteryBank(BatteryBankConfig config);

  void facility_sample(Time start, double it_W, double facility_W, double energy_J) override;

  [[nodiscard]] double import_J() const noexcept { return import_J_.value(); }
  [[nodiscard]] double demand_J() const noexcept { return demand_J_.value(); }
  [[nodiscard]] double peak_import_W() const noexcept { return peak_import_W_; }
  [[nodiscard]] double hours_over_limit() const noexcept { return over_s_ / 3600.0; }
  [[nodiscard]] double loss_J() const;
  [[nodiscard]] double stored_change_J() const;

 private:
  BatteryBankConfig config_;
  std::vector<SiteBattery> batteries_;
  double capacity_J_ = 0.0, initial_J_ = 0.0;
  EnergySum import_J_, demand_J_;
  double peak_import_W_ = 0.0, over_s_ = 0.0;
};

}  // namespace fleetwatt::sim
