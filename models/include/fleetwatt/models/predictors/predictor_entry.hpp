// A predictor's registry entry (core/registry.hpp's shape): its name, one line of description, the declared
// [predictor] parameters and a factory from the scenario's [predictor] section. Each predictor declares its
// own entries here; models/predictor_registry.hpp gathers them with the fitted ones above this folder.
#pragma once

#include <functional>
#include <memory>

#include "fleetwatt/core/registry.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/models/predictors/predictor_config.hpp"

namespace fleetwatt::models {

/// Builds a predictor from the scenario's [predictor] section; config.params is already checked against the
/// entry's declared parameters (defaults from there), which are what [predictor] may hold besides kind, band
/// and classes.
using PredictorFactory = std::function<std::unique_ptr<PowerPredictor>(const models::PredictorConfig&)>;
using PredictorEntry = core::RegistryEntry<PredictorFactory>;

}  // namespace fleetwatt::models
