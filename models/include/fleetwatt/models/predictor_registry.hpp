// Registry of predictors by name (core/registry.hpp's shape): one line of description, the declared
// [predictor] parameters, a factory from the scenario's [predictor] section. `fleetwatt list` prints it.
// Built-ins are registered by an explicit call (static self-registration is dropped by static libraries).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fleetwatt/core/registry.hpp"
#include "fleetwatt/models/power_predictor.hpp"
#include "fleetwatt/workloads/scenario.hpp"

namespace fleetwatt::models {

/// Builds a predictor from the scenario's [predictor] section; config.params is already checked against the
/// entry's declared parameters (defaults from there), which are what [predictor] may hold besides kind, band
/// and classes.
using PredictorFactory = std::function<std::unique_ptr<PowerPredictor>(const workloads::PredictorConfig&)>;
using PredictorEntry = core::RegistryEntry<PredictorFactory>;

class PredictorRegistry {
 public:
  /// A registry holding every built-in predictor.
  [[nodiscard]] static PredictorRegistry with_builtins();

  void add(PredictorEntry entry);
  [[nodiscard]] const std::vector<PredictorEntry>& entries() const noexcept { return entries_.entries(); }
  /// Builds the configured predictor; an unknown kind, or a parameter the kind does not declare, is a
  /// ConfigError listing the known ones.
  [[nodiscard]] std::unique_ptr<PowerPredictor> make(const workloads::PredictorConfig& config) const;

 private:
  core::Registry<PredictorFactory> entries_{"predictor"};
};

}  // namespace fleetwatt::models
