// Class-based predictor: each job class has a measured per-epoch phase profile at a reference dataset size;
// durations scale linearly with the job's dataset size. Built-in classes are the published 4-GPU A800
// measurements for ViT and BERT.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/models/predictors/predictor_config.hpp"

namespace fleetwatt::models {

class TablePredictor final : public PowerPredictor {
 public:
  /// Built-in classes plus `classes` (which may redefine a built-in).
  explicit TablePredictor(const std::vector<models::JobClassConfig>& classes = {});

  [[nodiscard]] std::string_view name() const override { return "table"; }
  [[nodiscard]] EpochPlan plan(const JobSpec& job, const GpuHardware& gpu) const override;

  [[nodiscard]] bool has_class(const std::string& name) const { return classes_.count(name) != 0; }
  [[nodiscard]] const models::JobClassConfig& job_class(const std::string& name) const;
  /// Class names, sorted.
  [[nodiscard]] std::vector<std::string> class_names() const;

  /// The built-in classes ("vit", "bert").
  [[nodiscard]] static std::vector<models::JobClassConfig> builtin_classes();

 private:
  std::map<std::string, models::JobClassConfig> classes_;
};

}  // namespace fleetwatt::models
