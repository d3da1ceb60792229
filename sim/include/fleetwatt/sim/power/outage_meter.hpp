// The grid meter through grid outages: a meter filter (meter_filter.hpp) in front of the result sink that
// takes each facility interval's IT load off the grid as ride_through.hpp says, reports grid import and
// the UPS's and the dark share beside the facility series, and has the interval's carbon and cost charged
// on import, as the battery bank does.
#pragma once

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"
#include "fleetwatt/sim/power/meter_filter.hpp"
#include "fleetwatt/sim/power/power_ledger.hpp"
#include "fleetwatt/sim/power/ride_through.hpp"

namespace fleetwatt::sim {

struct OutageMeterConfig {
  RideThroughConfig ride_through;
  Duration interval = Duration::from_ns(1'000'000'000);
  Time horizon = Time::zero();
  const sim::GridSignal* carbon = nullptr;  ///< g/kWh; null: carbon_kg_per_J
  double carbon_kg_per_J = 0.0;
  const sim::GridSignal* price = nullptr;  ///< currency/MWh; null: no cost
};

class OutageMeter final : public MeterFilter {
 public:
  explicit OutageMeter(OutageMeterConfig config)
      : MeterFilter({config.carbon, config.carbon_kg_per_J, config.price}), config_(std::move(config)) {}

  void facility_sample(Time start, double it_W, double facility_W, double energy_J) override;

  [[nodiscard]] double import_J() const noexcept { return import_J_.value(); }
  [[nodiscard]] double ups_J() const noexcept { return ups_J_.value(); }
  [[nodiscard]] double unserved_J() const noexcept { return unserved_J_.value(); }
  [[nodiscard]] double peak_import_W() const noexcept { return peak_import_W_; }
  /// The largest interval-mean IT power off the grid: the load a dip took from the grid.
  [[nodiscard]] double peak_off_grid_W() const noexcept { return peak_off_W_; }

 private:
  OutageMeterConfig config_;
  EnergySum import_J_, ups_J_, unserved_J_;
  double peak_import_W_ = 0.0, peak_off_W_ = 0.0;
};

}  // namespace fleetwatt::sim
