// The grid meter: facility power cut at the facility intervals and integrated against step signals, by hand.
#include <catch2/catch.hpp>
#include <vector>

#include "fleetwatt/sim/power/grid_meter.hpp"

using namespace fleetwatt;
using sim::Duration;
using sim::Time;

namespace {
struct Sample {
  double start_s, kg, cost;
};
Time at(double s) {
  return Time::from_seconds(s);
}
}  // namespace

TEST_CASE("carbon and cost are cut at interval boundaries and integrate each step of the signals", "[grid]") {
  // Carbon 360 g/kWh until t = 15 s, then 720; price 3600 per MWh throughout. PUE 2.
  // 1 g/kWh x 1 J = 1 / 3.6e6 g, so 360 g/kWh x 1 J = 1e-4 g = 1e-7 kg; 3600/MWh x 1 J = 1e-6.
  const sim::GridSignal carbon({0.0, 15.0}, {360.0, 720.0}, "g/kWh");
  const sim::GridSignal price({0.0}, {3600.0}, "USD/MWh");
  std::vector<Sample> out;
  sim::GridMeter meter({Duration::from_seconds(10), 2.0, &carbon, 0.0, &price},
                       [&](Time t, double kg, double cost) {
                         out.push_back({t.seconds(), kg, cost});
                       });
  // IT 50 W over [0, 4), 100 W over [4, 22), then 0 W to the horizon at 25 s (a partial last interval).
  meter.add(at(0), at(4), 50.0);
  meter.add(at(4), at(22), 100.0);
  meter.add(at(22), at(25), 0.0);
  meter.close(at(25));
  REQUIRE(out.size() == 3);
  // [0, 10): facility 100 W x 4 s + 200 W x 6 s = 1600 J at 360 -> 1.6e-4 kg; cost 1.6e-3.
  CHECK(out[0].start_s == 0.0);
  CHECK(out[0].kg == Approx(1.6e-4));
  CHECK(out[0].cost == Approx(1.6e-3));
  // [10, 20): 200 W x 5 s at 360 + 200 W x 5 s at 720 = 1e-4 + 2e-4 kg; 2000 J -> 2e-3.
  CHECK(out[1].start_s == 10.0);
  CHECK(out[1].kg == Approx(3e-4));
  CHECK(out[1].cost == Approx(2e-3));
  // [20, 25): 200 W x 2 s at 720 = 400 J -> 0.8e-4 kg; 4e-4.
  CHECK(out[2].start_s == 20.0);
  CHECK(out[2].kg == Approx(0.8e-4));
  CHECK(out[2].cost == Approx(4e-4));
  CHECK(meter.carbon_kg() == Approx(1.6e-4 + 3e-4 + 0.8e-4));
  CHECK(meter.cost() == Approx(1.6e-3 + 2e-3 + 4e-4));
}

TEST_CASE(
    "without a carbon signal the facility's constant factor applies, a horizon on a boundary adds "
    "no empty interval",
    "[grid]") {
  std::vector<Sample> out;
  // 0.5 kg/kWh = 0.5 / 3.6e6 kg/J; no price signal: cost 0.
  sim::GridMeter meter({Duration::from_seconds(60), 1.5, nullptr, 0.5 / 3.6e6, nullptr},
                       [&](Time t, double kg, double cost) {
                         out.push_back({t.seconds(), kg, cost});
                       });
  meter.add(at(0), at(120), 1000.0);  // one span across two whole intervals
  meter.close(at(120));
  REQUIRE(out.size() == 2);
  // 1500 W x 60 s = 90 kJ = 0.025 kWh -> 0.0125 kg per interval.
  CHECK(out[0].kg == Approx(0.0125));
  CHECK(out[1].kg == Approx(0.0125));
  CHECK(out[1].cost == 0.0);
  CHECK(meter.carbon_kg() == Approx(0.025));
}
