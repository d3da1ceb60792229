// How a setup becomes the engine's parts: its node groups, the weather-driven facility model sized to the
// fleet, and the power ledger's configuration.
#pragma once

#include <memory>

#include "fleetwatt/sim/engine.hpp"

namespace fleetwatt::sim {

/// The weather-driven facility model of a setup, sized to the fleet's peak IT power unless the scenario
/// gives design_it_kw; null for constant cooling.
[[nodiscard]] std::unique_ptr<FacilityModel> facility_model(const EngineSetup& s, const FleetLayout& layout);
/// The ledger's configuration: the fleet's idle draw, PUE, intervals and node groups.
[[nodiscard]] LedgerConfig ledger_config(const EngineSetup& s, const FleetLayout& layout,
                                         const FacilityModel* facility);

}  // namespace fleetwatt::sim
