// The site's power side: the grid meter and the batteries observe the ledger, carbon is charged on what the
// meter sees (facility power without batteries, grid import with them), and the network's draw enters the
// ledger as other IT power. Figures by hand.
#include <catch2/catch.hpp>

#include <array>

#include "fleetwatt/sim/power/power_site.hpp"
#include "sim_test_support.hpp"

using namespace fleetwatt;
using Catch::Matchers::WithinRel;
using sim::Duration;
using sim::Time;

namespace {

// One server of two GPUs idling at 50 W, 100 W of base power, PUE 1.5: IT 200 W until both GPUs draw
// 300 W from t = 0, IT 700 W, facility 1,050 W for 10 s (10,500 J). Carbon 1e-6 kg/J.
sim::LedgerConfig ledger() {
  sim::LedgerConfig c;
  c.nodes = 1;
  c.gpus_per_node = 2;
  c.gpu_idle_W = 50.0;
  c.node_base_W = 100.0;
  c.pue = 1.5;
  return c;
}
sim::GridMeterConfig grid() {
  return {Duration::from_seconds(1), 1.5, nullptr, 1e-6, nullptr, nullptr};
}
constexpr std::array<sim::GpuIndex, 2> kGpus{0, 1};

}  // namespace

TEST_CASE("the grid meter observes the ledger: carbon on facility power", "[power_site]") {
  sim::PowerSite site(nullptr, ledger(), grid(), std::nullopt, std::nullopt);
  test::RecordingSink sink;
  site.attach(&sink);
  site.ledger().set_gpu_power(Time::zero(), kGpus, 300.0);
  site.close(Time::from_seconds(10));
  CHECK_THAT(site.ledger().facility_energy_J(), WithinRel(10'500.0, 1e-12));
  CHECK_THAT(site.grid().carbon_kg(), WithinRel(10'500.0 * 1e-6, 1e-12));
  CHECK(site.batteries() == nullptr);
  CHECK(site.sink() == &sink);
  REQUIRE(sink.f_energy.size() == 10);
  CHECK_THAT(sink.f_facility.front(), WithinRel(1'050.0, 1e-12));
}

TEST_CASE("with batteries, carbon is charged on grid import", "[power_site]") {
  // A peak-shaving battery holding import at 800 W: it discharges 250 W for 10 s, and the grid supplies
  // 8,000 J of the 10,500, the carbon of which is 8,000 x 1e-6 kg.
  sim::BatteryConfig b;
  b.energy_J = 1e6;
  b.power_W = 1'000.0;
  b.import_limit_W = 800.0;
  sim::BatteryBankConfig bank{{b},  800.0,  Duration::from_seconds(1), Time::from_seconds(10), nullptr,
                              1e-6, nullptr};
  sim::PowerSite site(nullptr, ledger(), grid(), bank, std::nullopt);
  site.ledger().set_gpu_power(Time::zero(), kGpus, 300.0);  // no result sink: the batteries still see it
  site.close(Time::from_seconds(10));
  REQUIRE(site.batteries() != nullptr);
  CHECK_THAT(site.batteries()->import_J(), WithinRel(8'000.0, 1e-12));
  CHECK_THAT(site.batteries()->carbon_kg(), WithinRel(8'000.0 * 1e-6, 1e-12));
  // The grid meter still sees facility power (the figure before the batteries).
  CHECK_THAT(site.grid().carbon_kg(), WithinRel(10'500.0 * 1e-6, 1e-12));
}

TEST_CASE("the network's draw is other IT power, sent to the sink inside the window", "[power_site]") {
  // IT 200 W idle. The network draws 400 W from t = -5 s (a warm-up: the ledger counts it, the sink does
  // not see it), 1,000 W from t = 4 s. Facility power: (200 + 400) x 1.5 = 900 W for 4 s, then
  // (200 + 1,000) x 1.5 = 1,800 W for 6 s: 3,600 + 10,800 = 14,400 J over [0, 10 s).
  sim::PowerSite site(nullptr, ledger(), grid(), std::nullopt, std::nullopt);
  test::RecordingSink sink;
  site.send_network_W(Time::zero());  // no network yet: nothing to send
  site.set_network_W(Time::from_seconds(-5), 400.0);
  site.attach(&sink);
  site.send_network_W(Time::zero());  // the window opens
  site.set_network_W(Time::from_seconds(4), 1'000.0);
  site.set_network_W(Time::from_seconds(6), 1'000.0);  // unchanged: nothing sent
  site.close(Time::from_seconds(10));
  CHECK_THAT(site.ledger().facility_energy_J(), WithinRel(14'400.0, 1e-12));
  REQUIRE(sink.network.size() == 2);
  CHECK(sink.network[0] == std::pair{0.0, 400.0});
  CHECK(sink.network[1] == std::pair{4.0, 1'000.0});
  REQUIRE(sink.f_facility.size() == 10);
  CHECK_THAT(sink.f_facility[3], WithinRel(900.0, 1e-12));
  CHECK_THAT(sink.f_facility[4], WithinRel(1'800.0, 1e-12));
}
