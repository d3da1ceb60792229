// What stands between the ledger and the result sink when the utility's meter reads something other than
// the facility's demand (batteries, grid outages): it passes the node, GPU and network series through and
// re-prices each facility interval's carbon and cost on grid import. The difference between import and
// demand is constant over an interval, so its carbon and cost are that power times the signals' exact
// integrals over the interval.
#pragma once

#include <deque>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"
#include "fleetwatt/sim/power/power_ledger.hpp"
#include "fleetwatt/sim/power/power_sink.hpp"

namespace fleetwatt::sim {

/// The signals carbon and cost are charged by.
struct MeterPricing {
  const sim::GridSignal* carbon = nullptr;  ///< g/kWh; null: carbon_kg_per_J
  double carbon_kg_per_J = 0.0;
  const sim::GridSignal* price = nullptr;  ///< currency/MWh; null: no cost
};

class MeterFilter : public PowerSink {
 public:
  explicit MeterFilter(const MeterPricing& pricing) : pricing_(pricing) {}
  /// Where every series goes after the filter (may be null).
  void set_downstream(PowerSink* sink) { down_ = sink; }

  void node_samples(Time start, std::span<const double> node_W) final {
    if (down_) down_->node_samples(start, node_W);
  }
  void gpu_change(Time t, std::span<const GpuIndex> gpus, double power_W) final {
    if (down_) down_->gpu_change(t, gpus, power_W);
  }
  [[nodiscard]] bool wants_gpu_changes() const final {
    return down_ != nullptr && down_->wants_gpu_changes();
  }
  void network_change(Time t, double power_W) final {
    if (down_) down_->network_change(t, power_W);
  }
  /// The facility's carbon and cost of the interval, re-priced on import and sent on.
  void grid_sample(Time start, double carbon_kg, double cost) final;

  /// Carbon and cost of grid import over the run.
  [[nodiscard]] double carbon_kg() const noexcept { return carbon_.value(); }
  [[nodiscard]] double cost() const noexcept { return cost_.value(); }

 protected:
  /// The interval starting at `start`, `dt_s` long, imports `delta_W` more than the facility demands (its
  /// grid sample follows).
  void priced_interval(Time start, double dt_s, double delta_W) {
    pending_.push_back({start, dt_s, delta_W});
  }
  PowerSink* down_ = nullptr;

 private:
  struct Pending {
    Time start;
    double dt_s, delta_W;  ///< import - demand over the interval
  };
  MeterPricing pricing_;
  std::deque<Pending> pending_;  ///< intervals whose facility sample came and grid sample has not yet
  EnergySum carbon_, cost_;
};

}  // namespace fleetwatt::sim
