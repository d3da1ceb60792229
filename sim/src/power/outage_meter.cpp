// Grid import through grid outages, carbon and cost re-priced on it (outage_meter.hpp).
#include "fleetwatt/sim/power/outage_meter.hpp"

#include <algorithm>

#include "fleetwatt/core/assert.hpp"

namespace fleetwatt::sim {

void OutageMeter::facility_sample(Time start, double it_W, double facility_W, double energy_J) {
  const double dt = (std::min(start + config_.interval, config_.horizon) - start).seconds();
  const double t0 = start.seconds();
  const OffGridShare off = off_grid_share(config_.ride_through, t0, t0 + dt, it_W);
  const double off_W = off.ups_W + off.unserved_W;
  const double import_W = facility_W - off_W;
  import_J_.add(import_W * dt);
  ups_J_.add(off.ups_W * dt);
  unserved_J_.add(off.unserved_W * dt);
  peak_import_W_ = std::max(peak_import_W_, import_W);
  peak_off_W_ = std::max(peak_off_W_, off_W);
  pending_.push_back({start, dt, -off_W});
  if (down_) {
    down_->facility_sample(start, it_W, facility_W, energy_J);
    down_->outage_sample(start, import_W, off.ups_W, off.unserved_W);
  }
}

void OutageMeter::grid_sample(Time start, double carbon_kg, double cost) {
  FLEETWATT_ASSERT(!pending_.empty() && pending_.front().start == start,
                   "outage meter: a grid sample without its facility sample");
  const Pending p = pending_.front();
  pending_.pop_front();
  const double t0 = start.seconds(), t1 = t0 + p.dt_s;
  carbon_kg += config_.carbon ? p.delta_W * config_.carbon->integral(t0, t1) / 3.6e9
                              : p.delta_W * p.dt_s * config_.carbon_kg_per_J;
  if (config_.price) cost += p.delta_W * config_.price->integral(t0, t1) / 3.6e9;
  carbon_.add(carbon_kg);
  cost_.add(cost);
  if (down_) down_->grid_sample(start, carbon_kg, cost);
}

}  // namespace fleetwatt::sim
