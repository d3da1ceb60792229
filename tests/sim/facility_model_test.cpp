// The weather-driven cooling model: facility power at hand-computed points of both presets, the ledger's
// and the grid meter's exact integrals across weather steps and events, and the declaration's key checks.
#include <catch2/catch.hpp>

#include "fleetwatt/sim/power/facility_model.hpp"
#include "fleetwatt/sim/power/grid_meter.hpp"
#include "fleetwatt/sim/power/power_ledger.hpp"
#include "sim_test_support.hpp"

using namespace fleetwatt;
using namespace fleetwatt::sim;
using Catch::Matchers::WithinRel;

namespace {

sim::Weather steps(std::vector<double> t_s, std::vector<double> dry_C) {
  sim::Weather w;
  w.t_s = std::move(t_s);
  w.dry_bulb_C = std::move(dry_C);
  w.source = "test";
  return w;
}

CoolingDesign preset_1mw(const std::string& design) {
  CoolingDesign d = cooling_preset(design);
  d.design_it_W = 1e6;
  return d;
}

// Hand calculation shared by the cases below (air preset, design IT D = 1 MW):
//   eta = COP_rated x (T_rated + approach - T_evap,rated) / T_evap,rated[K] = 2.80 x (35 + 10 - 6.7) / 279.85
//       = 0.383205289
//   full load: L = D (0.01 + 0.02 + 0.01) = 40,000 W; Q = Q_design = 1,040,000 W; p = 1;
//              F = 0.08 x 1,040,000 x 1^3 = 83,200 W
constexpr double kEta = 2.80 * 38.3 / 279.85;

}  // namespace

TEST_CASE("air preset: PUE at hand-computed points", "[facility]") {
  const FacilityModel m(preset_1mw("air"), steps({0.0}, {0.0}));
  CHECK_THAT(m.carnot_fraction(), WithinRel(0.383205289, 1e-8));
  // 0 C, full load: at or below free_cooling_c (7 C) the economiser carries everything, no chiller.
  // 1,000,000 + 40,000 + 83,200 = 1,123,200 W -> PUE 1.1232.
  auto b = m.breakdown(1e6, 0.0);
  CHECK(b.chiller_W == 0.0);
  CHECK_THAT(b.facility_W(), WithinRel(1'123'200.0, 1e-12));
  // 0 C, half load: L = 1e6 (0.01 + 0.02 x 0.5 + 0.01 x 0.25) = 22,500; Q = 522,500; p = 0.502403846;
  // flow = 0.3 + 0.7 p = 0.651682692; F = 83,200 x flow^3 = 83,200 x 0.276763339 = 23,026.710 W;
  // PUE = (500,000 + 22,500 + 23,026.710) / 500,000 = 1.091053420.
  b = m.breakdown(5e5, 0.0);
  CHECK_THAT(b.electrical_W, WithinRel(22'500.0, 1e-12));
  CHECK_THAT(b.fans_pumps_W, WithinRel(23'026.70977, 1e-8));
  CHECK_THAT(b.facility_W() / 5e5, WithinRel(1.091053420, 1e-8));
  // 35 C, full load: all mechanical; lift = 35 + 10 - 12 = 33 K; COP = eta x 285.15 / 33 = 3.311242061;
  // C = 1,040,000 / 3.311242061 x (1 + 0.25 (1 - 1)) = 314,081.538 W; PUE = 1.437281538.
  b = m.breakdown(1e6, 35.0);
  CHECK_THAT(b.chiller_W, WithinRel(314'081.5382, 1e-8));
  CHECK_THAT(b.facility_W() / 1e6, WithinRel(1.437281538, 1e-8));
  // 9.5 C, full load: share = (9.5 - 7) / (12 - 7) = 0.5; lift = 9.5 + 10 - 12 = 7.5 K -> the 10 K floor;
  // COP = eta x 285.15 / 10 = 10.927098803; C = 0.5 x 1,040,000 / 10.927 x (1 + 0.25 (1 - 0.5))
  // = 53,536.626 W; PUE = 1.176736626.
  b = m.breakdown(1e6, 9.5);
  CHECK_THAT(b.chiller_W, WithinRel(53'536.62583, 1e-8));
  CHECK_THAT(b.facility_W() / 1e6, WithinRel(1.176736626, 1e-8));
  CHECK_THAT(kEta * 285.15 / 10.0, WithinRel(10.927098803, 1e-9));
}

TEST_CASE("liquid preset: warm water lowers the chiller's lift and the fans' share", "[facility]") {
  const FacilityModel m(preset_1mw("liquid"), steps({0.0}, {0.0}));
  // 35 C, full load: lift = 35 + 10 - 30 = 15 K; COP = eta x 303.15 / 15 = 7.744578882;
  // C = 1,040,000 / 7.7446 = 134,287.482 W; F = 0.04 x 1,040,000 = 41,600 W; PUE = 1.215887482.
  CHECK_THAT(m.breakdown(1e6, 35.0).facility_W() / 1e6, WithinRel(1.215887482, 1e-8));
  // 24 C (free_cooling_c of the liquid preset): no chiller, PUE = 1 + 0.04 + 0.0416 = 1.0816.
  CHECK_THAT(m.breakdown(1e6, 24.0).facility_W() / 1e6, WithinRel(1.0816, 1e-12));
}

TEST_CASE("the ledger and the grid meter integrate exactly across weather steps and events", "[facility]") {
  // 1 MW of IT (one node's base power), weather 0 C from t = 0 and 35 C from t = 1800 s, IT halved at
  // t = 2700 s, one 3600 s facility interval. Piecewise powers (cases above):
  //   [0, 1800)    x = 1,   0 C: 1,123,200 W
  //   [1800, 2700) x = 1,  35 C: 1,437,281.538 W
  //   [2700, 3600) x = 0.5, 35 C: 500,000 + 22,500 + 23,026.710 + 522,500 / 3.311242 x (1 + 0.25 (1 - p))
  //                = 500,000 + 22,500 + 23,026.710 + 177,425.415 = 722,952.125 W
  //   energy = 1,123,200 x 1800 + 1,437,281.538 x 900 + 722,952.125 x 900 = 3,965,970,296.85 J,
  //   mean 1,101,658.416 W; at 1 kg/kWh carbon = 3,965,970,296.85 / 3.6e6 = 1,101.658416 kg.
  const FacilityModel m(preset_1mw("air"), steps({0.0, 1800.0}, {0.0, 35.0}));
  LedgerConfig c;
  c.nodes = 1;
  c.gpus_per_node = 1;
  c.node_base_W = 1e6;
  c.facility = &m;
  c.facility_interval = Duration::from_seconds(3600);
  c.node_interval = Duration::from_seconds(3600);
  test::RecordingSink sink;
  PowerLedger ledger(c, &sink);
  double carbon = 0.0;
  GridMeter meter({Duration::from_seconds(3600), 1.0, nullptr, 1.0 / 3.6e6, nullptr, &m},
                  [&](Time, double kg, double) { carbon += kg; });
  ledger.add_segment_observer([&](Time t0, Time t1, double it_W) { meter.add(t0, t1, it_W); });
  ledger.add_other_it_power(Time::from_seconds(2700), -5e5);
  ledger.close(Time::from_seconds(3600));
  meter.close(Time::from_seconds(3600));
  REQUIRE(sink.f_facility.size() == 1);
  CHECK_THAT(sink.f_facility[0], WithinRel(1'101'658.41579, 1e-9));
  CHECK_THAT(sink.f_energy[0], WithinRel(3'965'970'296.849, 1e-9));
  CHECK_THAT(ledger.facility_energy_J(), WithinRel(3'965'970'296.849, 1e-9));
  CHECK_THAT(carbon, WithinRel(1'101.6584158, 1e-9));
  CHECK_THAT(ledger.peak_facility_W(), WithinRel(1'437'281.538, 1e-9));
  // IT energy is the ledger's own: 1 MW x 2700 s + 0.5 MW x 900 s.
  CHECK_THAT(ledger.it_energy_J(), WithinRel(3.15e9, 1e-12));
  CHECK_THAT(ledger.max_interval_pue(), WithinRel(3'965'970'296.849 / 3.15e9, 1e-9));
}

TEST_CASE("a weather step that falls inside an interval splits it, samples stay interval means",
          "[facility]") {
  // Steps every 1800 s, intervals of 3600 s, constant 1 MW: each sample is the mean of its two steps.
  const FacilityModel m(preset_1mw("air"), steps({0.0, 1800.0, 3600.0, 5400.0}, {0.0, 35.0, 35.0, 0.0}));
  LedgerConfig c;
  c.node_base_W = 1e6;
  c.facility = &m;
  c.facility_interval = Duration::from_seconds(3600);
  c.node_interval = Duration::from_seconds(3600);
  test::RecordingSink sink;
  PowerLedger ledger(c, &sink);
  ledger.close(Time::from_seconds(7200));
  REQUIRE(sink.f_facility.size() == 2);
  // (1,123,200 + 1,437,281.538) / 2 = 1,280,240.769 W for both intervals.
  CHECK_THAT(sink.f_facility[0], WithinRel(1'280'240.769, 1e-9));
  CHECK_THAT(sink.f_facility[1], WithinRel(1'280'240.769, 1e-9));
  CHECK_THAT(sink.f_energy[1], WithinRel(2 * 1'280'240.769 * 3600, 1e-9));
}

TEST_CASE("cooling keys are checked by the kind's declaration", "[facility]") {
  auto params = [](std::initializer_list<std::pair<const char*, jobs::ParamValue>> kv) {
    jobs::ParamSet p("facility", {"s.toml", 3, 1});
    for (const auto& [k, v] : kv) p.set(k, v);
    return p;
  };
  const jobs::SourceLocation at{"s.toml", 4, 1};
  CHECK(cooling_design("weather", at, params({})).design == "air");
  CHECK(cooling_design("weather", at, params({{"design", {std::string("liquid"), at}}})).evaporator_c ==
        30.0);
  const auto d = cooling_design("weather", at, params({{"evaporator_c", {14.0, at}}}));
  CHECK(d.evaporator_c == 14.0);
  CHECK(d.fan_pump == 0.08);
  auto message = [&](const std::string& kind, const jobs::ParamSet& p) -> std::string {
    try {
      (void)cooling_design(kind, at, p);
    } catch (const jobs::ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK_THAT(message("weather", params({{"fan_pump_w", {0.1, {"s.toml", 7, 1}}}})),
             Catch::Contains("s.toml:7:1") && Catch::Contains("fan_pump_w"));
  CHECK_THAT(message("constant", params({{"design", {std::string("air"), {"s.toml", 5, 1}}}})),
             Catch::Contains("s.toml:5:1") && Catch::Contains("design"));
  CHECK_THAT(message("hydro", params({})), Catch::Contains("s.toml:4:1") && Catch::Contains("unknown kind"));
  CHECK_THAT(message("weather", params({{"design", {std::string("water"), {"s.toml", 6, 3}}}})),
             Catch::Contains("s.toml:6:3") && Catch::Contains("not air or liquid"));
  CHECK_THAT(message("weather", params({{"no_free_cooling_c", {5.0, {"s.toml", 8, 1}}}})),
             Catch::Contains("s.toml:8:1") && Catch::Contains("above free_cooling_c"));
  CHECK_THAT(message("weather", params({{"ups_fixed_fraction", {1.5, {"s.toml", 9, 1}}}})),
             Catch::Contains("s.toml:9:1") && Catch::Contains("outside 0..1"));
}
