// Registry of predictors by name: one line of description, the declared [predictor] parameters, a factory
// from the scenario's [predictor] section. `fleetwatt list` prints it. Built-ins are registered by an
// explicit call (static self-registration is dropped by static libraries).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fleetwatt/models/power_predictor.hpp"
#include "fleetwatt/workloads/scenario.hpp"

namespace fleetwatt::models {

struct PredictorEntry {
  std::string name;
  std::string description;
  workloads::ParamSpecs params;  ///< what [predictor] may hold besides kind, band and classes
  /// Builds the predictor; config.params is already checked against `params` (defaults from there).
  std::function<std::unique_ptr<PowerPredictor>(const workloads::PredictorConfig&)> make;
};

class PredictorRegistry {
 public:
  /// A registry holding every built-in predictor.
  [[nodiscard]] static PredictorRegistry with_builtins();

  void add(PredictorEntry entry);
  [[nodiscard]] const std::vector<PredictorEntry>& entries() const noexcept { return entries_; }
  /// Builds the configured predictor; an unknown kind, or a parameter the kind does not declare, is a
  /// ConfigError listing the known ones.
  [[nodiscard]] std::unique_ptr<PowerPredictor> make(const workloads::PredictorConfig& config) const;

 private:
  std::vector<PredictorEntry> entries_;
};

}  // namespace fleetwatt::models
