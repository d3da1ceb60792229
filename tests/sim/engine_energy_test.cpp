// The published one-day figure and the facility arithmetic, checked through whole engine runs.
#include <catch2/catch.hpp>

#include "sim_test_support.hpp"

using fleetwatt::test::make_run;

namespace {
// ViT on 4 A800 GPUs (Energies 2026, task-metadata study): valley 62.23 W for 6.41 s, peak 291.06 W for
// 182.58 s per epoch.
constexpr double kPeakW = 291.06, kPeakS = 182.58, kValleyW = 62.23, kValleyS = 6.41;

std::string vit_fleet(int servers, double pue, double carbon) {
  std::string toml = "[fleet]\nnodes = " + std::to_string(servers) +
                     "\ngpus_per_node = 4\ngpu = \"a800\"\ngpu_idle_w = 50\nnode_base_w = 0\n"
                     "[facility]\npue = " +
                     std::to_string(pue) + "\ncarbon_kg_per_kwh = " + std::to_string(carbon) +
                     "\n[workload]\nhorizon_s = 86400\n";
  for (int i = 0; i < servers; ++i) toml += "[[workload.jobs]]\nn_gpus = 4\nepochs = 1000\nclass = \"vit\"\n";
  return toml;
}

/// 4 GPUs at the ViT duty cycle for 24 h, computed from the phase values: 4 x (f_peak P_peak + f_valley
/// P_valley) x 86400 s, with f_peak = 182.58 / 188.99 = 0.966 and f_valley = 0.034.
double expected_server_day_J() {
  const double f_peak = kPeakS / (kPeakS + kValleyS);
  const double f_valley = kValleyS / (kPeakS + kValleyS);
  return 4.0 * (f_peak * kPeakW + f_valley * kValleyW) * 86400.0;
}
}  // namespace

TEST_CASE("one server running ViT back to back for a day uses about 27.2 kWh of GPU energy",
          "[engine][published]") {
  auto run = make_run(vit_fleet(1, 1.0, 0.5));
  run.engine->run();
  const auto& s = run.engine->summary();
  const double expected = expected_server_day_J();
  CHECK(expected / 3.6e6 == Approx(27.2).epsilon(0.001));  // the published figure, from the phase values
  CHECK(s.gpu_energy_J == Approx(expected).epsilon(0.001));
  // With PUE 1 and no server base load, facility energy is GPU energy; CO2 at 0.5 kg/kWh is about 13.6 kg.
  CHECK(s.carbon_kg == Approx(expected / 3.6e6 * 0.5).epsilon(0.001));
  CHECK(s.carbon_kg == Approx(13.6).epsilon(0.002));
}

TEST_CASE("a thousand such servers use about 27.2 MWh and emit about 13.6 t", "[engine][published]") {
  auto run = make_run(vit_fleet(1000, 1.0, 0.5));
  run.engine->run();
  const auto& s = run.engine->summary();
  CHECK(s.gpu_energy_J == Approx(1000 * expected_server_day_J()).epsilon(0.001));
  CHECK(s.gpu_energy_J / 3.6e9 == Approx(27.2).epsilon(0.002));
  CHECK(s.carbon_kg / 1000 == Approx(13.6).epsilon(0.002));
  CHECK(s.gpu_utilisation == Approx(1.0));
}

TEST_CASE("PUE multiplies facility power and energy exactly", "[engine]") {
  fleetwatt::test::RecordingSink a, b;
  auto r1 = make_run(vit_fleet(3, 1.0, 0.0));
  auto r2 = make_run(vit_fleet(3, 1.4, 0.0));
  r1.engine->attach(&a);
  r2.engine->attach(&b);
  r1.engine->run();
  r2.engine->run();
  CHECK(r2.engine->summary().facility_energy_J ==
        Approx(1.4 * r1.engine->summary().facility_energy_J).epsilon(1e-12));
  CHECK(r2.engine->summary().it_energy_J == r1.engine->summary().it_energy_J);
  REQUIRE(a.f_facility.size() == b.f_facility.size());
  for (std::size_t i = 0; i < a.f_facility.size(); i += 997)
    CHECK(b.f_facility[i] == Approx(1.4 * a.f_facility[i]));
}

TEST_CASE("facility series integrate to the run's energy and node series sum to IT power", "[engine]") {
  fleetwatt::test::RecordingSink sink;
  auto run = make_run(vit_fleet(5, 1.3, 0.0) + "[output]\nfacility_interval_s = 1\nnode_interval_s = 10\n");
  run.engine->attach(&sink);
  run.engine->run();
  const auto& s = run.engine->summary();
  double facility_J = 0, it_J = 0;
  for (std::size_t i = 0; i < sink.f_facility.size(); ++i) {
    facility_J += sink.f_facility[i] * 1.0;
    it_J += sink.f_it[i] * 1.0;
  }
  CHECK(sink.f_facility.size() == 86400);
  CHECK(facility_J == Approx(s.facility_energy_J).epsilon(1e-9));
  CHECK(it_J == Approx(s.it_energy_J).epsilon(1e-9));
  CHECK(sink.f_energy.back() == Approx(s.facility_energy_J).epsilon(1e-9));
  // Each 10 s node sample summed over nodes equals the mean of the ten 1 s IT samples it covers.
  REQUIRE(sink.n_power.size() == 8640);
  for (std::size_t k = 0; k < sink.n_power.size(); k += 13) {
    double nodes = 0;
    for (double w : sink.n_power[k]) nodes += w;
    double it = 0;
    for (std::size_t i = 10 * k; i < 10 * k + 10; ++i) it += sink.f_it[i];
    CHECK(nodes == Approx(it / 10).epsilon(1e-9));
  }
}
