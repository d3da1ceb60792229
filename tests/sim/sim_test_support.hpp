// Builds engines from scenario text for the sim tests, and a sink that records everything in memory.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/sim/engine.hpp"
#include "fleetwatt/sim/power_sink.hpp"

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
};

}  // namespace fleetwatt::test
