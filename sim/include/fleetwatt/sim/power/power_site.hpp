// The site's power side: the power ledger, its inputs and what observes it. Jobs and nodes change the
// ledger's GPU and node power; the interconnect's draw enters as the site's network power, which the
// ledger counts as other IT power and the result sink receives as its own series. The facility's cooling
// model turns the ledger's IT power into facility power; the grid meter integrates every span of constant
// IT power into carbon and cost per facility interval; the batteries, when the site has them, sit between
// the ledger and the result sink and charge carbon and cost on grid import instead. The engine changes
// power only through the site and reads its totals at the horizon; it holds none of these parts itself.
#pragma once

#include <memory>
#include <optional>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/power/battery_bank.hpp"
#include "fleetwatt/sim/power/facility_model.hpp"
#include "fleetwatt/sim/power/grid_meter.hpp"
#include "fleetwatt/sim/power/outage_meter.hpp"
#include "fleetwatt/sim/power/power_ledger.hpp"
#include "fleetwatt/sim/power/power_sink.hpp"

namespace fleetwatt::sim {

class PowerSite {
 public:
  /// `facility`: weather-driven cooling (null: IT x pue). `ledger.facility` and `grid.facility` are set to
  /// it here. `batteries`: the site's batteries and import limit, if it has batteries.
  /// `outages`: the grid events the site rides through or not (never with batteries).
  PowerSite(std::unique_ptr<FacilityModel> facility, LedgerConfig ledger, GridMeterConfig grid,
            std::optional<BatteryBankConfig> batteries, std::optional<OutageMeterConfig> outages);
  PowerSite(const PowerSite&) = delete;  // the observers hold pointers into the site
  PowerSite& operator=(const PowerSite&) = delete;

  /// Streams the power series to `sink` (through the batteries when there are some).
  void attach(PowerSink* sink);
  /// The result sink attached (null: none).
  [[nodiscard]] PowerSink* sink() const noexcept { return sink_; }
  /// The interconnect (switches, links, NICs) draws `W` from `now` on: the ledger's other IT power moves by
  /// the change and, inside the window, the result sink receives the new draw. The first call says the
  /// site has a network; a call that changes nothing sends nothing.
  void set_network_W(Time now, double W);
  /// Sends the network's draw as it stands to the result sink at `now` (the window opening after a warm-up,
  /// or a sink attached inside the window); nothing without a network or a sink.
  void send_network_W(Time now);
  /// Closes the ledger and the grid meter at the horizon; nothing may follow.
  void close(Time horizon);

  [[nodiscard]] PowerLedger& ledger() noexcept { return ledger_; }
  [[nodiscard]] const PowerLedger& ledger() const noexcept { return ledger_; }
  [[nodiscard]] const FacilityModel* facility() const noexcept { return facility_.get(); }
  [[nodiscard]] const GridMeter& grid() const noexcept { return grid_; }
  /// The batteries (null: none).
  [[nodiscard]] const BatteryBank* batteries() const noexcept { return bank_.get(); }
  /// The grid outages' meter (null: no grid events).
  [[nodiscard]] const OutageMeter* outages() const noexcept { return outages_.get(); }

 private:
  std::unique_ptr<FacilityModel> facility_;
  PowerLedger ledger_;
  std::unique_ptr<BatteryBank> bank_;     ///< between the ledger and sink_ when there are batteries
  std::unique_ptr<OutageMeter> outages_;  ///< there instead when there are grid events
  GridMeter grid_;                        ///< carbon and cost per facility interval
  PowerSink* sink_ = nullptr;
  std::optional<double> network_W_;  ///< the interconnect's draw (none: no network)
};

}  // namespace fleetwatt::sim
