// The IT load off the grid during outages (ride_through.hpp).
#include "fleetwatt/sim/power/ride_through.hpp"

#include <algorithm>
#include <limits>

namespace fleetwatt::sim {

namespace {

/// Integral over [a, b) of what one outage takes off the grid: all of `it_W` while off, then what the
/// return ramp has not yet brought back, it_W - ramp x (t - back), until it is all back.
double off_grid_J(const GridOutage& o, double ramp_W_per_s, double a, double b, double it_W) {
  if (b <= a || it_W <= 0.0) return 0.0;
  double j = std::max(0.0, std::min(b, o.back_s) - std::max(a, o.off_s)) * it_W;
  const double ramp_end =
      ramp_W_per_s > 0.0 ? o.back_s + it_W / ramp_W_per_s : std::numeric_limits<double>::infinity();
  const double lo = std::max(a, o.back_s), hi = std::min(b, ramp_end);
  if (hi > lo) {  // the linear part: it_W - r (t - back) from lo to hi
    const double x0 = lo - o.back_s, x1 = hi - o.back_s;
    j += it_W * (x1 - x0) - 0.5 * ramp_W_per_s * (x1 * x1 - x0 * x0);
  }
  return j;
}

}  // namespace

OffGridShare off_grid_share(const RideThroughConfig& config, double t0_s, double t1_s, double it_W) {
  OffGridShare share;
  const double dt = t1_s - t0_s;
  if (dt <= 0.0) return share;
  for (const auto& o : config.outages) {
    if (o.off_s >= t1_s) break;
    // Before the UPS runs out its energy is served; after, the load is dark.
    const double ups_end = std::min(t1_s, std::max(t0_s, o.ups_until_s));
    share.ups_W += off_grid_J(o, config.return_ramp_W_per_s, t0_s, ups_end, it_W) / dt;
    share.unserved_W += off_grid_J(o, config.return_ramp_W_per_s, ups_end, t1_s, it_W) / dt;
  }
  return share;
}

}  // namespace fleetwatt::sim
