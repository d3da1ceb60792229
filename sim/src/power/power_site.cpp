// The site's power side (power_site.hpp): the ledger and its observers, wired once.
#include "fleetwatt/sim/power/power_site.hpp"

#include <utility>

namespace fleetwatt::sim {

namespace {

LedgerConfig with_facility(LedgerConfig c, const FacilityModel* facility) {
  c.facility = facility;
  return c;
}

GridMeterConfig with_facility(GridMeterConfig c, const FacilityModel* facility) {
  c.facility = facility;
  return c;
}

}  // namespace

PowerSite::PowerSite(std::unique_ptr<FacilityModel> facility, LedgerConfig ledger, GridMeterConfig grid,
                     std::optional<BatteryBankConfig> batteries, std::optional<OutageMeterConfig> outages)
    : facility_(std::move(facility)),
      ledger_(with_facility(std::move(ledger), facility_.get())),
      bank_(batteries ? std::make_unique<BatteryBank>(std::move(*batteries)) : nullptr),
      outages_(outages ? std::make_unique<OutageMeter>(std::move(*outages)) : nullptr),
      // Carbon and cost: exact integrals of facility power against the grid signals, per facility interval
      // (the /facility series) and in total; with batteries they are charged on grid import, by the bank.
      grid_(with_facility(grid, facility_.get()), [this](Time start, double carbon_kg, double cost) {
        if (bank_)
          bank_->grid_sample(start, carbon_kg, cost);
        else if (outages_)
          outages_->grid_sample(start, carbon_kg, cost);
        else if (sink_)
          sink_->grid_sample(start, carbon_kg, cost);
      }) {
  // Runs without a result sink still see the batteries or the outages.
  if (bank_) ledger_.attach(bank_.get());
  if (outages_) ledger_.attach(outages_.get());
  ledger_.add_segment_observer([this](Time t0, Time t1, double it_W) { grid_.add(t0, t1, it_W); });
}

void PowerSite::attach(PowerSink* sink) {
  if (bank_) {
    bank_->set_downstream(sink);
    ledger_.attach(bank_.get());
  } else if (outages_) {
    outages_->set_downstream(sink);
    ledger_.attach(outages_.get());
  } else {
    ledger_.attach(sink);
  }
  sink_ = sink;
}

void PowerSite::set_network_W(Time now, double W) {
  const double before = network_W_.value_or(0.0);
  if (network_W_ && W == before) return;
  ledger_.add_other_it_power(now, W - before);
  network_W_ = W;
  if (sink_ && now >= Time::zero()) sink_->network_change(now, W);
}

void PowerSite::send_network_W(Time now) {
  if (network_W_ && sink_) sink_->network_change(now, *network_W_);
}

void PowerSite::close(Time horizon) {
  ledger_.close(horizon);
  grid_.close(horizon);
}

}  // namespace fleetwatt::sim
