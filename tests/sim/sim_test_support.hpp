// Builds engines from scenario text for the sim tests, and a sink that records everything in memory.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/power/power_sink.hpp"

namespace fleetwatt::test {

/// A prepared run (scenario, setup, predictor, jobs) and its engine, built as `fleetwatt run` builds them.
struct TestRun : runs::PreparedRun {
  std::unique_ptr<sim::Engine> engine;
};

inline TestRun make_run(const std::string& toml) {
  TestRun r;
  static_cast<runs::PreparedRun&>(r) = runs::prepare_run(runs::parse_scenario(toml, "test.toml"));
  r.engine = runs::make_engine(r);
  return r;
}

// One job on all 8 GPUs (2 servers x 4, no server base power): 3 epochs of 100 s at 300 W then a 10 s
// checkpoint at 100 W; idle 50 W. Without failures it runs [0, 330) and uses 3 x 8 x (300 x 100 + 100 x 10)
// = 744,000 J.
inline const std::string kOneJobScenario = R"(
[fleet]
nodes = 2
gpus_per_node = 4
gpu = "a800"
gpu_idle_w = 50
node_base_w = 0
[workload]
horizon_s = 1000
[[workload.jobs]]
n_gpus = 8
epochs = 3
peak_w = 300
peak_s = 100
valley_w = 100
valley_s = 10
)";

/// Per step: compute 3 s at 400 W, pipeline bubble 1.5 s at 100 W, exposed communication 1 s at 200 W,
/// exposed loading 0.5 s at 80 W (a 6 s step, 1,590 J per GPU, a mean of 265 W); 10 steps per epoch, and
/// a 4 s checkpoint at 90 W.
class StepPredictor final : public models::PowerPredictor {
 public:
  std::string_view name() const override { return "steps"; }
  jobs::EpochPlan plan(const jobs::JobSpec&, const models::GpuHardware&) const override {
    using jobs::PartKind;
    jobs::EpochPlan p;
    p[PartKind::compute] = {30.0, 400.0};
    p[PartKind::comm] = {10.0, 200.0};
    p[PartKind::io] = {5.0, 80.0};
    p[PartKind::checkpoint] = {4.0, 90.0};
    p.bubble = {15.0, 100.0};
    p.steps = 10.0;
    return p;
  }
};

/// Keeps every sample and change in memory (small test fleets only).
struct RecordingSink final : sim::PowerSink {
  std::vector<double> f_start, f_it, f_facility, f_energy;
  std::vector<double> n_start;
  std::vector<std::vector<double>> n_power;
  struct Change {
    double t;
    sim::GpuIndex gpu;
    double W;
    bool operator==(const Change&) const = default;
  };
  std::vector<Change> changes;
  std::vector<std::pair<double, double>> network;  ///< (t in s, W) as the network's draw was sent

  void facility_sample(sim::Time start, double it_W, double facility_W, double energy_J) override {
    f_start.push_back(start.seconds());
    f_it.push_back(it_W);
    f_facility.push_back(facility_W);
    f_energy.push_back(energy_J);
  }
  void node_samples(sim::Time start, std::span<const double> node_W) override {
    n_start.push_back(start.seconds());
    n_power.emplace_back(node_W.begin(), node_W.end());
  }
  void gpu_change(sim::Time t, std::span<const sim::GpuIndex> gpus, double W) override {
    for (auto g : gpus) changes.push_back({t.seconds(), g, W});
  }
  void network_change(sim::Time t, double W) override { network.emplace_back(t.seconds(), W); }
};

}  // namespace fleetwatt::test
