// Carbon and cost re-priced on grid import (meter_filter.hpp).
#include "fleetwatt/sim/power/meter_filter.hpp"

#include "fleetwatt/core/assert.hpp"

namespace fleetwatt::sim {

void MeterFilter::grid_sample(Time start, double carbon_kg, double cost) {
  FLEETWATT_ASSERT(!pending_.empty() && pending_.front().start == start,
                   "meter: a grid sample without its facility sample");
  const Pending p = pending_.front();
  pending_.pop_front();
  const double t0 = start.seconds(), t1 = t0 + p.dt_s;
  // J x g/kWh / (3.6e6 J/kWh) / (1000 g/kg); J x currency/MWh / (3.6e9 J/MWh).
  carbon_kg += pricing_.carbon ? p.delta_W * pricing_.carbon->integral(t0, t1) / 3.6e9
                               : p.delta_W * p.dt_s * pricing_.carbon_kg_per_J;
  if (pricing_.price) cost += p.delta_W * pricing_.price->integral(t0, t1) / 3.6e9;
  carbon_.add(carbon_kg);
  cost_.add(cost);
  if (down_) down_->grid_sample(start, carbon_kg, cost);
}

}  // namespace fleetwatt::sim
