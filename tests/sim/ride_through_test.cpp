// The IT load an outage takes off the grid, per interval, against integrals done by hand: the whole load
// while off, the part the return ramp has not brought back, split at the UPS's end between served and dark.
#include <catch2/catch.hpp>

#include "fleetwatt/sim/power/ride_through.hpp"

using Catch::Detail::Approx;
using namespace fleetwatt::sim;

TEST_CASE("an outage's IT load off the grid: off, then ramping back, served until the UPS runs out",
          "[ride_through]") {
  // Off at 10.5 s, back at 20.25 s, UPS until 15 s, return at 2 W/s; 10 W of IT load.
  const RideThroughConfig c{{{10.5, 20.25, 15.0}}, 2.0};
  // Before: nothing.
  auto s = off_grid_share(c, 9.0, 10.0, 10.0);
  CHECK(s.ups_W == 0.0);
  CHECK(s.unserved_W == 0.0);
  // [10, 11): off for its second half, all on the UPS: 10 W x 0.5 s / 1 s.
  s = off_grid_share(c, 10.0, 11.0, 10.0);
  CHECK(s.ups_W == Approx(5.0));
  CHECK(s.unserved_W == 0.0);
  // [14, 16): 1 s on the UPS, 1 s dark: 5 W of each on average.
  s = off_grid_share(c, 14.0, 16.0, 10.0);
  CHECK(s.ups_W == Approx(5.0));
  CHECK(s.unserved_W == Approx(5.0));
  // [20, 21): dark 0.25 s at 10 W (2.5 J), then the ramp: the integral of 10 - 2x over x in [0, 0.75] is
  // 7.5 - 0.5625 = 6.9375 J; 9.4375 J in 1 s, all dark.
  s = off_grid_share(c, 20.0, 21.0, 10.0);
  CHECK(s.ups_W == 0.0);
  CHECK(s.unserved_W == Approx(9.4375));
  // [24, 26): the ramp ends at 25.25 s (10 W / 2 W/s after 20.25): the integral of 10 - 2x over x in
  // [3.75, 5] is 12.5 - 25 + 14.0625 = 1.5625 J, over 2 s.
  s = off_grid_share(c, 24.0, 26.0, 10.0);
  CHECK(s.unserved_W == Approx(0.78125));
  // After: nothing.
  s = off_grid_share(c, 26.0, 27.0, 10.0);
  CHECK(s.unserved_W == 0.0);
}

TEST_CASE("a UPS that outlasts the outage serves all of it, the ramp included", "[ride_through]") {
  const RideThroughConfig c{{{0.0, 4.0, 100.0}}, 1.0};
  // 4 s off at 3 W (12 J), then the ramp from 3 W to 0 over 3 s (4.5 J): 16.5 J served, none dark.
  const auto s = off_grid_share(c, 0.0, 10.0, 3.0);
  CHECK(s.ups_W * 10.0 == Approx(16.5));
  CHECK(s.unserved_W == 0.0);
}
