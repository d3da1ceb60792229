// Registry of predictors by name (core/registry.hpp's shape; entries from predictors/predictor_entry.hpp). It
// sits above predictors/ and fit/ because it holds the fitted "sr" predictor too. `fleetwatt list` prints it.
// Built-ins are registered by an explicit call (static self-registration is dropped by static libraries).
#pragma once

#include <memory>
#include <vector>

#include "fleetwatt/models/predictors/predictor_entry.hpp"

namespace fleetwatt::models {

class PredictorRegistry {
 public:
  /// A registry holding every built-in predictor.
  [[nodiscard]] static PredictorRegistry with_builtins();

  void add(PredictorEntry entry);
  [[nodiscard]] const std::vector<PredictorEntry>& entries() const noexcept { return entries_.entries(); }
  /// Builds the configured predictor; an unknown kind, or a parameter the kind does not declare, is a
  /// ConfigError listing the known ones.
  [[nodiscard]] std::unique_ptr<PowerPredictor> make(const models::PredictorConfig& config) const;

 private:
  core::Registry<PredictorFactory> entries_{"predictor"};
};

}  // namespace fleetwatt::models
