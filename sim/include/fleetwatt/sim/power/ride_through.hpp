// What the campus's meter does when the grid dips ([[grid.event]] with the [facility] ride-through keys):
// a dip no longer than the IT supplies' ride-through is ridden through; a longer one transfers the IT load
// to the UPS after the transfer delay, so grid import drops to the load that is not on UPS (cooling and the
// rest of the facility overhead); the UPS carries the IT load for its autonomy, after which that load is
// dark (unserved) until the grid is back; once the grid has been back for the return delay, the IT load
// returns at the return ramp. The UPS's later recharge is not drawn. Per facility interval the split is
// exact for the interval's mean IT power: demand = import + UPS + unserved.
#pragma once

#include <vector>

namespace fleetwatt::sim {

/// One outage of the grid as the campus sees it, in seconds since the start.
struct GridOutage {
  double off_s = 0.0;        ///< the IT load leaves the grid (dip start + transfer delay)
  double back_s = 0.0;       ///< it starts returning (dip end + return delay)
  double ups_until_s = 0.0;  ///< the UPS is exhausted (off_s + autonomy): the IT load is dark after it
};

struct RideThroughConfig {
  std::vector<GridOutage> outages;   ///< in time order, not overlapping
  double return_ramp_W_per_s = 0.0;  ///< how fast the IT load returns to the grid
};

/// The interval's mean IT power not drawn from the grid, split by who carries it.
struct OffGridShare {
  double ups_W = 0.0;       ///< served by the UPS
  double unserved_W = 0.0;  ///< dark: the UPS was exhausted
};

/// Over [t0_s, t1_s), with the interval's mean IT power `it_W`: what the outages take off the grid.
[[nodiscard]] OffGridShare off_grid_share(const RideThroughConfig& config, double t0_s, double t1_s,
                                          double it_W);

}  // namespace fleetwatt::sim
