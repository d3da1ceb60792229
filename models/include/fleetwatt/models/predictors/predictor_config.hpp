// A scenario's [predictor] section as the predictors read it: the kind, the band a run uses, the measured
// job classes of class-based predictors and the kind's own parameters (checked against its registry entry).
#pragma once

#include <string>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/param_set.hpp"
#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::models {

/// A job class for class-based predictors: a measured per-epoch phase profile at a reference dataset size.
struct JobClassConfig {
  std::string name;
  jobs::PhaseProfile reference;
  double reference_samples = 0.0;
  core::SourceLocation where;
};

/// Which end of a prediction's uncertainty band a run uses (low/mid/high runs bracket the energy).
enum class Band { low, mid, high };

struct PredictorConfig {
  std::string kind = "datasheet";
  Band band = Band::mid;
  core::SourceLocation kind_origin;
  std::vector<JobClassConfig> classes;  ///< [predictor.classes.NAME] tables
  core::ParamSet params;                ///< any other key of [predictor], for the predictor's registry entry
};

}  // namespace fleetwatt::models
