// Jobs checked before the run (job_precheck.hpp), through the engine's own intake checks (job_intake.hpp).
#include "fleetwatt/sim/engine/job_precheck.hpp"

#include <optional>

#include "job_intake.hpp"

namespace fleetwatt::sim {

void precheck_job(const jobs::JobSpec& spec, const FleetLayout& layout,
                  const models::PowerPredictor& predictor) {
  const auto& types = layout.types();
  std::optional<jobs::ConfigError> first_error;
  for (const auto& gpu : types) {
    try {
      // As Engine::draw_job: one type plans the job as given, several match it again on each type.
      TypedRun run = types.size() == 1
                         ? TypedRun{plan_job(spec, gpu, predictor), spec.epochs, spec.meta.dataset_samples}
                         : run_on_type(spec, gpu, predictor);
      (void)check_plan(spec, run.plan, gpu, predictor.name());
      check_whole_length(spec, run.plan, run.epochs);
      return;
    } catch (const jobs::ConfigError& e) {
      if (!first_error) first_error = e;
    }
  }
  if (first_error) throw *first_error;
}

}  // namespace fleetwatt::sim
