// The invariants of `fleetwatt compare`: every policy runs the same jobs, each policy's facility energy
// equals the integral of its own facility series, the power cap is never exceeded, deferrable jobs meet their
// deadlines, and carbon is the exact integral of facility power against the signal.
#include <catch2/catch.hpp>

#include <cmath>

#include "fleetwatt/runs/policy_comparison.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "test_support.hpp"

using namespace fleetwatt;

namespace {

// 8 servers x 8 A800 GPUs, two days of PAI-calibrated jobs at 10 an hour (about an eighth of the fleet busy,
// so deferred jobs always find room), a third of them deferrable within 12 h; carbon 400 g/kWh by day
// (06:00-18:00), 200 g/kWh by night. The cap (11 kW) and the demand-response target (9.5 kW) bind: FIFO peaks
// near 14 kW.
std::string scenario(const std::filesystem::path& carbon_csv) {
  return R"(
seed = 7
[fleet]
nodes = 8
gpus_per_node = 8
gpu = "a800"
gpu_idle_w = 60
node_base_w = 400
[facility]
pue = 1.2
[scheduler]
policy = "fifo"
[scheduler.powercap]
cap_w = 11000.0
[scheduler.dr]
start_s = 90000
end_s = 97200
target_w = 9500.0
[workload]
horizon_s = 259200
[workload.preset]
cluster = "pai"
rate_per_hour = 10
end_s = 172800
deferrable_fraction = 0.33
defer_window_s = 43200
[grid.carbon]
file = ")" +
         carbon_csv.string() + R"("
repeat = true
[output]
facility_interval_s = 60
)";
}

}  // namespace

TEST_CASE("every policy runs the same jobs, energy, cap and deadline invariants hold", "[policies]") {
  test::TempDir dir;
  const auto csv = dir.write("carbon.csv", "offset_time,value\n0,200\n21600,400\n64800,200\n");
  const auto s = runs::parse_scenario(scenario(csv), (dir / "s.toml").string());
  const auto in = runs::prepare_run(s);
  REQUIRE(in.jobs.size() > 100);
  const std::vector<std::string> policies{"fifo", "sjf", "easy", "powercap", "carbon", "consolidate", "dr"};
  const auto rows = runs::compare_policies(in, policies, 2);
  REQUIRE(rows.size() == policies.size());
  for (const auto& r : rows) {
    INFO("policy " << r.policy);
    REQUIRE(r.jobs.size() == rows[0].jobs.size());
    for (std::size_t i = 0; i < r.jobs.size(); ++i) {
      CHECK(r.jobs[i].spec.id == rows[0].jobs[i].spec.id);
      CHECK(r.jobs[i].spec.submit_s == rows[0].jobs[i].spec.submit_s);
      CHECK(r.jobs[i].spec.n_gpus == rows[0].jobs[i].spec.n_gpus);
      CHECK(r.jobs[i].plan.profile() == rows[0].jobs[i].plan.profile());
      CHECK(r.jobs[i].epoch.peak == rows[0].jobs[i].epoch.peak);
      CHECK(r.jobs[i].epoch.valley == rows[0].jobs[i].epoch.valley);
    }
    CHECK(r.series_energy_J == Approx(r.facility_energy_J).epsilon(1e-9));
    // Facility = IT x PUE.
    CHECK(r.facility_energy_J == Approx(1.2 * r.it_energy_J).epsilon(1e-12));
    // Carbon lies between the night and day intensities times the energy (J -> kWh -> kg).
    CHECK(r.carbon_kg > 200.0 * r.facility_energy_J / 3.6e6 / 1000 * 0.999);
    CHECK(r.carbon_kg < 400.0 * r.facility_energy_J / 3.6e6 / 1000 * 1.001);
  }
  const auto& powercap = rows[3];
  CHECK(powercap.peak_facility_W <= 11000.0);
  for (double w : powercap.facility_W) CHECK(w <= 11000.0 + 1e-6);
  CHECK(rows[0].peak_facility_W > 11000.0);  // the cap binds: FIFO goes above it
  const auto& carbon = rows[4];
  std::size_t deferrable = 0;
  for (const auto& j : carbon.jobs) deferrable += j.spec.deferrable;
  CHECK(deferrable > 20);
  CHECK(carbon.deadline_misses == 0);
  // During the demand-response event the facility stays at or under its target.
  const auto& dr = rows[6];
  for (std::size_t i = 0; i < dr.facility_t_s.size(); ++i)
    if (dr.facility_t_s[i] >= 90000 && dr.facility_t_s[i] + 60 <= 97200)
      CHECK(dr.facility_W[i] <= 9500.0 + 1e-6);
  CHECK(dr.lost_gpu_hours > 0.0);  // the event paused jobs
}

TEST_CASE("carbon of a constant load is its energy times the mean intensity", "[policies]") {
  // One idle server (no jobs start before the horizon): 400 W + 8 x 60 W = 880 W IT, PUE 1.2, for 24 h.
  // Intensity 200 g/kWh for 6 h, 400 for 12 h, 200 for 6 h: mean 300 g/kWh.
  test::TempDir dir;
  const auto csv = dir.write("carbon.csv", "offset_time,value\n0,200\n21600,400\n64800,200\n");
  const auto price = dir.write("price.csv", "time,value\n0,100\n43200,50\n");  // currency/MWh
  auto s = runs::parse_scenario(R"(
[fleet]
nodes = 1
gpus_per_node = 8
gpu = "a800"
gpu_idle_w = 60
node_base_w = 400
[facility]
pue = 1.2
[workload]
horizon_s = 86400
[[workload.jobs]]
submit_s = 90000
class = "vit"
n_gpus = 1
[grid.carbon]
file = ")" + csv.string() + R"("
[grid.price]
file = ")" + price.string() + R"("
)",
                                (dir / "s.toml").string());
  const auto in = runs::prepare_run(s);
  const auto row = runs::run_policy(in, "fifo");
  const double kwh = 880.0 * 1.2 * 24.0 / 1000.0;
  CHECK(row.carbon_kg == Approx(kwh * 300.0 / 1000.0).epsilon(1e-12));
  // Price 100 per MWh for 12 h, then 50: mean 75 per MWh.
  CHECK(row.cost == Approx(kwh / 1000.0 * 75.0).epsilon(1e-12));
  // The series: one value per 1 s facility interval, each 1056 W x 1 s at the intensity and price then in
  // force, summing to the totals.
  REQUIRE(row.facility_carbon_kg.size() == 86400);
  REQUIRE(row.facility_cost.size() == 86400);
  const double j_per_s = 880.0 * 1.2;
  CHECK(row.facility_carbon_kg[0] == Approx(j_per_s * 200.0 / 3.6e6 / 1000.0).epsilon(1e-12));
  CHECK(row.facility_carbon_kg[21600] == Approx(j_per_s * 400.0 / 3.6e6 / 1000.0).epsilon(1e-12));
  CHECK(row.facility_carbon_kg[86399] == Approx(j_per_s * 200.0 / 3.6e6 / 1000.0).epsilon(1e-12));
  CHECK(row.facility_cost[43199] == Approx(j_per_s * 100.0 / 3.6e9).epsilon(1e-12));
  CHECK(row.facility_cost[43200] == Approx(j_per_s * 50.0 / 3.6e9).epsilon(1e-12));
  double kg = 0.0, cost = 0.0;
  for (std::size_t i = 0; i < 86400; ++i) {
    kg += row.facility_carbon_kg[i];
    cost += row.facility_cost[i];
  }
  CHECK(kg == Approx(row.carbon_kg).epsilon(1e-9));  // a plain sum of 86,400 terms
  CHECK(cost == Approx(row.cost).epsilon(1e-9));
  // `fleetwatt run` integrates the same way: the engine's own summary.
  const auto engine_ptr = runs::make_engine(in);
  sim::Engine& engine = *engine_ptr;
  engine.run();
  CHECK(engine.summary().carbon_kg == Approx(kwh * 300.0 / 1000.0).epsilon(1e-12));
  CHECK(engine.summary().cost == Approx(kwh / 1000.0 * 75.0).epsilon(1e-12));
}

TEST_CASE("a demand-response event by GPU caps holds its target, every job still done", "[policies]") {
  test::TempDir dir;
  const auto csv = dir.write("carbon.csv", "offset_time,value\n0,200\n21600,400\n64800,200\n");
  std::string text = scenario(csv);
  const std::string target = "target_w = 9500.0\n";
  text.replace(text.find(target), target.size(), target + "action = \"cap\"\n");
  const auto s = runs::parse_scenario(text, (dir / "s.toml").string());
  const auto in = runs::prepare_run(s);
  const auto rows = runs::compare_policies(in, {"fifo", "dr"}, 2);
  const auto& dr = rows[1];
  for (std::size_t i = 0; i < dr.facility_t_s.size(); ++i)
    if (dr.facility_t_s[i] >= 90000 && dr.facility_t_s[i] + 60 <= 97200)
      CHECK(dr.facility_W[i] <= 9500.0 + 1e-6);
  double capped = 0.0;
  for (const auto& m : dr.metrics)
    if (m.first == "dr_capped_jobs") capped = m.second;
  CHECK(capped > 0.0);
  CHECK(dr.lost_gpu_hours > 0.0);
  CHECK(dr.series_energy_J == Approx(dr.facility_energy_J).epsilon(1e-9));
  CHECK(dr.jobs_done == rows[0].jobs_done);
}
