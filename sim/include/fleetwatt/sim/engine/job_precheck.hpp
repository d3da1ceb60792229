// A job checked before the run as the engine will check it when it draws the job: its plan on every GPU type
// of the fleet, and its whole length against the clock. Explicit jobs (and jobs CSV rows) are known before
// the run, so their bad input is refused before any arrival is drawn or predicted.
#pragma once

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/sim/fleet/fleet_layout.hpp"

namespace fleetwatt::sim {

/// Throws the ConfigError the engine would raise drawing `spec`: on a fleet of one GPU type, that type's
/// error; on several, the first type's error when no type can run the job.
void precheck_job(const jobs::JobSpec& spec, const FleetLayout& layout,
                  const models::PowerPredictor& predictor);

}  // namespace fleetwatt::sim
