// Built-in predictors and lookup by name.
#include "fleetwatt/models/predictor_registry.hpp"

#include <fmt/format.h>

#include "fleetwatt/models/fit/sr_predictor.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"
#include "fleetwatt/models/predictors/table_predictor.hpp"

namespace fleetwatt::models {

void PredictorRegistry::add(PredictorEntry entry) {
  entries_.add(std::move(entry));
}

PredictorRegistry PredictorRegistry::with_builtins() {
  PredictorRegistry r;
  r.add({"table",
         "per-class measured phase profiles ([predictor.classes.NAME]; built-in vit, bert on A800)",
         {},
         [](const models::PredictorConfig& c) -> std::unique_ptr<PowerPredictor> {
           return std::make_unique<TablePredictor>(c.classes);
         }});
  for (auto& e : first_principles_predictor_entries()) r.add(std::move(e));
  r.add({"sr", "a site's fitted symbolic-regression formulas (a model file from `fleetwatt fit`)",
         fit::SrPredictor::params(), [](const models::PredictorConfig& c) -> std::unique_ptr<PowerPredictor> {
           return fit::SrPredictor::from_config(c);
         }});
  return r;
}

std::unique_ptr<PowerPredictor> PredictorRegistry::make(const models::PredictorConfig& config) const {
  const auto& e = entries_.at(config.kind, config.kind_origin, "predictor.kind");
  models::PredictorConfig checked = config;
  checked.params = config.params.checked(e.params);
  return e.make(checked);
}

}  // namespace fleetwatt::models
