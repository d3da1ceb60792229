// The component power model: P = P_idle + P_dyn + P_mem_io, E = P T, facility energy, uncertainty.
#include "fleetwatt/models/predictors/component_model.hpp"
#include "fleetwatt/models/predictor_registry.hpp"

#include <catch2/catch.hpp>

using namespace fleetwatt::models;

TEST_CASE("Component power adds the floor, dynamic and memory terms", "[models][component]") {
  // A800: idle 62 W, TDP 400 W. Floor = 62 + 0.18 * 400 = 134 W; headroom 266 W.
  // utilisation 0.8 -> P_dyn = 266 * 0.8 = 212.8 W; memory activity 0.1 -> P_mem = 266 * 0.67 * 0.1 = 17.822
  // W.
  const GpuHardware& a800 = gpu_preset("a800");
  ComponentActivity a;
  a.utilisation = 0.8;
  a.memory_activity = 0.1;
  const ComponentPower p = component_power(a800, a);
  CHECK(p.idle_W == Approx(134.0));
  CHECK(p.dynamic_W == Approx(212.8));
  CHECK(p.mem_io_W == Approx(17.822));
  CHECK(p.total_W() == Approx(364.622));
}

TEST_CASE("Component power never exceeds the board's TDP", "[models][component]") {
  ComponentActivity a;
  a.utilisation = 1.0;
  a.memory_activity = 1.0;
  CHECK(component_power(gpu_preset("a40"), a).total_W() == Approx(300.0));
}

TEST_CASE("A starved data pipeline lowers both dynamic terms", "[models][component]") {
  ComponentActivity fed;
  fed.utilisation = 0.5, fed.memory_activity = 0.2;
  ComponentActivity starved = fed;
  starved.pipeline_factor = 0.5;
  const auto& g = gpu_preset("v100");
  CHECK(component_power(g, starved).dynamic_W == Approx(0.5 * component_power(g, fed).dynamic_W));
  CHECK(component_power(g, starved).mem_io_W == Approx(0.5 * component_power(g, fed).mem_io_W));
  CHECK(component_power(g, starved).idle_W == component_power(g, fed).idle_W);
}

TEST_CASE("Run energy is power times time, and facility energy scales by PUE", "[models][component]") {
  // The explainer's example: 4 GPUs at 520 W each for 10 h. E = 4 * 520 W * 36000 s = 74.88 MJ = 20.8 kWh
  // (the explainer prints 2.08 kWh, a factor of ten short).
  const double e = run_energy_J(4 * 520.0, 10 * 3600.0);
  CHECK(e == Approx(74.88e6));
  CHECK(e / 3.6e6 == Approx(20.8));
  CHECK(facility_energy_J(e, 1.2) == Approx(89.856e6));
}

TEST_CASE("The default uncertainty is 15 percent of dynamic power, 25 for communication-heavy jobs",
          "[models][component]") {
  CHECK(dynamic_power_uncertainty(false) == 0.15);
  CHECK(dynamic_power_uncertainty(true) == 0.25);
  // Half the energy dynamic: the energy band is half the dynamic band.
  CHECK(energy_uncertainty(0.5, false).low == Approx(0.075));
  CHECK(energy_uncertainty(0.5, true).high == Approx(0.125));
}

TEST_CASE("A pipeline factor of 0 is refused at its key, as an MFU of 0 is", "[models][component][edges]") {
  // It divides every compute time: 0 made them infinite, and a preset's run-time match then threw an
  // unlocated std::invalid_argument (found by the generated scenarios).
  fleetwatt::models::PredictorConfig c;
  c.kind = "component";
  c.params = fleetwatt::jobs::ParamSet("predictor", {"s.toml", 10, 1});
  c.params.set("pipeline_factor", {0.0, {"s.toml", 12, 1}});
  CHECK_THROWS_WITH(fleetwatt::models::PredictorRegistry::with_builtins().make(c),
                    "s.toml:12:1: predictor.pipeline_factor: must be positive");
  c.params.set("pipeline_factor", {1e-9, {"s.toml", 12, 1}});
  CHECK(fleetwatt::models::PredictorRegistry::with_builtins().make(c)->name() == "component");
}
