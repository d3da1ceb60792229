// The grid meter through grid outages: a PowerSink in front of the result sink that takes each facility
// interval's IT load off the grid as ride_through.hpp says, reports grid import and the UPS's and the
// dark share beside the facility series, and re-prices the interval's carbon and cost on import (the
// off-grid power is constant over the interval, so its carbon and cost are that power times the signals'
// exact integrals), as the battery bank does.
#pragma once

#include <deque>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"
#include "fleetwatt/sim/power/power_ledger.hpp"
#include "fleetwatt/sim/power/power_sink.hpp"
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

class OutageMeter final : public PowerSink {
 public:
  explicit OutageMeter(OutageMeterConfig config) : config_(std::move(config)) {}
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
  [[nodiscard]] double ups_J() const noexcept { return ups_J_.value(); }
  [[nodiscard]] double unserved_J() const noexcept { return unserved_J_.value(); }
  [[nodiscard]] double peak_import_W() const noexcept { return peak_import_W_; }
  /// The largest interval-mean IT power off the grid: the load a dip took from the grid.
  [[nodiscard]] double peak_off_grid_W() const noexcept { return peak_off_W_; }
  [[nodiscard]] double carbon_kg() const noexcept { return carbon_.value(); }
  [[nodiscard]] double cost() const noexcept { return cost_.value(); }

 private:
  struct Pending {
    Time start;
    double dt_s, delta_W;  ///< import - demand over the interval
  };
  OutageMeterConfig config_;
  PowerSink* down_ = nullptr;
  std::deque<Pending> pending_;
  EnergySum import_J_, ups_J_, unserved_J_, carbon_, cost_;
  double peak_import_W_ = 0.0, peak_off_W_ = 0.0;
};

}  // namespace fleetwatt::sim
