// What the sweep tests share: a small scenario whose fleet and seed the grids vary, and the fleetwatt
// command.
#pragma once

#include <string>

#include "test_support.hpp"

namespace fleetwatt::test {

inline std::string fleetwatt_command() {
  return fleetwatt_binary().string();
}

/// An hour of generated jobs on 4 servers of 4 GPUs, at 10 s facility intervals (small files, fast runs).
inline const std::string kSweepScenario = R"(seed = 11
[fleet]
nodes = 4
gpus_per_node = 4
[facility]
pue = 1.2
carbon_kg_per_kwh = 0.5
[workload]
horizon_s = 3600
[workload.generator]
rate_per_hour = 40
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 4, 8]
epochs = [1, 5]
dataset_samples = [10000, 30000]
[output]
facility_interval_s = 10
)";

}  // namespace fleetwatt::test
