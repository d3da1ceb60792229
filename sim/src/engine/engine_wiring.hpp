// How a setup becomes the engine's parts: its node groups, the weather-driven facility model sized to the
// fleet, and the configurations of the power ledger, the grid meter and the batteries.
#pragma once

#include <memory>
#include <optional>

#include "fleetwatt/sim/engine/engine.hpp"

namespace fleetwatt::sim {

/// The weather-driven facility model of a setup, sized to the fleet's peak IT power unless the scenario
/// gives design_it_kw; null for constant cooling.
[[nodiscard]] std::unique_ptr<FacilityModel> facility_model(const EngineSetup& s, const FleetLayout& layout);
/// The ledger's configuration: the fleet's idle draw, PUE, intervals and node groups (the site sets its
/// facility model).
[[nodiscard]] LedgerConfig ledger_config(const EngineSetup& s, const FleetLayout& layout);
/// The grid meter's: the facility interval, PUE and the carbon and price signals.
[[nodiscard]] GridMeterConfig grid_meter_config(const EngineSetup& s);
/// The batteries' and the import limit's, when the setup has batteries.
[[nodiscard]] std::optional<BatteryBankConfig> battery_bank_config(const EngineSetup& s);
/// The grid outages' meter of a setup with grid events it does not ride through (none: nothing).
[[nodiscard]] std::optional<OutageMeterConfig> outage_meter_config(const EngineSetup& s);

}  // namespace fleetwatt::sim
