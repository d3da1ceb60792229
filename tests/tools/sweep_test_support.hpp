// What the sweep tests share: a small scenario whose fleet and seed the grids vary.
#pragma once

#include <string>

#include "test_support.hpp"

namespace fleetwatt::test {

/// An hour of generated jobs on 4 servers of 4 GPUs, at 10 s facility intervals (small files, fast runs).
inline const std::string kSweepScenario =
    small_vit_scenario("pue = 1.2\ncarbon_kg_per_kwh = 0.5", 3600, 40, 10);

}  // namespace fleetwatt::test
