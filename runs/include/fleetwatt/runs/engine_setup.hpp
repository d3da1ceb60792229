// A scenario's engine setup: what sim::Engine is built from, with every file the scenario names read and
// every value checked against the clock (errors name the scenario file, line:column and key).
#pragma once

#include "fleetwatt/runs/scenario.hpp"
#include "fleetwatt/sim/engine/engine.hpp"

namespace fleetwatt::runs {

/// The engine's parts of a scenario: GPU presets with their overrides (and a user's preset file), the
/// facility and its cooling, batteries, grid signals, the horizon and warm-up, the output intervals, the
/// interconnect, failures and smoothing. Throws core::ConfigError at the offending key.
[[nodiscard]] sim::EngineSetup engine_setup(const Scenario& scenario);

}  // namespace fleetwatt::runs
