// Class-based phase profiles. Built-in classes come from the one job-class table
// (jobs/job_classes.hpp): the per-epoch measurements of a 4-GPU A800 study.
#include "fleetwatt/models/predictors/table_predictor.hpp"

#include "fleetwatt/jobs/job_classes.hpp"

#include <fmt/format.h>

namespace fleetwatt::models {

std::vector<models::JobClassConfig> TablePredictor::builtin_classes() {
  std::vector<models::JobClassConfig> v;
  for (const auto& c : jobs::builtin_job_classes())
    v.push_back({c.name, c.reference, c.reference_samples, {fmt::format("built-in class {}", c.name), 0, 0}});
  return v;
}

TablePredictor::TablePredictor(const std::vector<models::JobClassConfig>& classes) {
  for (auto& c : builtin_classes()) classes_[c.name] = c;
  for (const auto& c : classes) classes_[c.name] = c;
}

std::vector<std::string> TablePredictor::class_names() const {
  std::vector<std::string> names;
  for (const auto& [n, c] : classes_) names.push_back(n);
  return names;
}

const models::JobClassConfig& TablePredictor::job_class(const std::string& name) const {
  auto it = classes_.find(name);
  if (it == classes_.end()) throw std::out_of_range(name);
  return it->second;
}

EpochPlan TablePredictor::plan(const JobSpec& job, const GpuHardware& /*gpu*/) const {
  // The measured peak is all compute: the reference runs' own all-reduce (4 GPUs on one NVLink node) is
  // about 0.1 % of it, so a network model adds the placement's communication on top without counting it
  // twice in any way that matters. The traffic comes from the class's metadata.
  const auto meta = jobs::with_class_defaults(job);
  if (job.phases) return EpochPlan::from_profile(*job.phases, meta);
  if (job.job_class.empty())
    throw jobs::ConfigError(job.class_origin, "class",
                            fmt::format("job {} has neither a class nor phase values", job.id));
  auto it = classes_.find(job.job_class);
  if (it == classes_.end())
    throw jobs::ConfigError(
        job.class_origin, "class",
        fmt::format("unknown job class '{}' (known: {})", job.job_class, fmt::join(class_names(), ", ")));
  const auto& c = it->second;
  PhaseProfile p = c.reference;
  // Epoch work is proportional to the samples it sees, so both phases stretch with the dataset; the power
  // levels are those of the measured hardware and do not change.
  if (job.meta.dataset_samples > 0.0 && c.reference_samples > 0.0) {
    const double scale = job.meta.dataset_samples / c.reference_samples;
    p.peak_s *= scale;
    p.valley_s *= scale;
  }
  return EpochPlan::from_profile(p, meta);
}

}  // namespace fleetwatt::models
