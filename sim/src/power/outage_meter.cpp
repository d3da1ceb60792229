// Grid import through grid outages (outage_meter.hpp).
#include "fleetwatt/sim/power/outage_meter.hpp"

#include <algorithm>

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
  priced_interval(start, dt, -off_W);
  if (down_) {
    down_->facility_sample(start, it_W, facility_W, energy_J);
    down_->outage_sample(start, import_W, off.ups_W, off.unserved_W);
  }
}

}  // namespace fleetwatt::sim
