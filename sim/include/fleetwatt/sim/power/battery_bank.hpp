// The site's batteries between the facility and the grid meter's point of interconnection: a PowerSink
// that sits in front of the result sink, runs each facility interval's mean demand through the batteries
// (site_battery.hpp; several apply in order, each to the import the one before leaves), reports grid
// import, battery power and state of charge beside the facility series, and re-prices each interval's
// carbon and cost on grid import instead of facility demand: the battery's net power is constant over the
// interval, so its carbon and cost are that power times the signals' exact integrals over the interval.
#pragma once

#include <deque>
#include <vector>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"
#include "fleetwatt/sim/power/power_ledger.hpp"
#include "fleetwatt/sim/power/power_sink.hpp"
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

class BatteryBank final : public PowerSink {
 public:
  explicit BatteryBank(BatteryBankConfig config);
  /// Where every series goes after the batteries (may be null).
  void set_downstream(PowerSink* sink) { down_ = sink; }

  void facility_sample(Time start, double it_W, double facility_W, double energy_J) override;
  void node_samples(Time start, std::span<const double> node_W) override {
    if (down_) down_->node_samples(start, node_W);
  }
  void gpu_change(Time t, std::span<const GpuIndex> gpus, double power_W) override {
    if (down_) down_->gpu_change(t, gpus, power_W);
  }
  void network_change(Time t, double power_W) override {
    if (down_) down_->network_change(t, power_W);
  }
  void grid_sample(Time start, double carbon_kg, double cost) override;

  [[nodiscard]] double import_J() const noexcept { return import_J_.value(); }
  [[nodiscard]] double demand_J() const noexcept { return demand_J_.value(); }
  [[nodiscard]] double peak_import_W() const noexcept { return peak_import_W_; }
  [[nodiscard]] double hours_over_limit() const noexcept { return over_s_ / 3600.0; }
  [[nodiscard]] double loss_J() const;
  [[nodiscard]] double stored_change_J() const;
  [[nodiscard]] double carbon_kg() const noexcept { return carbon_.value(); }
  [[nodiscard]] double cost() const noexcept { return cost_.value(); }

 private:
  struct Pending {
    Time start;
    double dt_s, delta_W;  ///< import - demand over the interval
  };
  BatteryBankConfig config_;
  std::vector<SiteBattery> batteries_;
  double capacity_J_ = 0.0, initial_J_ = 0.0;
  PowerSink* down_ = nullptr;
  std::deque<Pending> pending_;  ///< intervals whose facility sample came and grid sample has not yet
  EnergySum import_J_, demand_J_, carbon_, cost_;
  double peak_import_W_ = 0.0, over_s_ = 0.0;
};

}  // namespace fleetwatt::sim
