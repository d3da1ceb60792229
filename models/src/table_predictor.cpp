// Class-based phase profiles. Built-in classes are the per-epoch measurements of the 4-GPU A800 study in
// "Predicting GPU Training Energy Consumption in Data Centers Using Task Metadata via Symbolic Regression"
// (Energies 2026): ViT and BERT at batch 256, 100,000 samples, 64 workers.
#include "fleetwatt/models/table_predictor.hpp"

#include <fmt/format.h>

namespace fleetwatt::models {

std::vector<workloads::JobClassConfig> TablePredictor::builtin_classes() {
  std::vector<workloads::JobClassConfig> v;
  workloads::JobClassConfig vit;
  vit.name = "vit";
  vit.reference = {.peak_W = 291.06, .peak_s = 182.58, .valley_W = 62.23, .valley_s = 6.41};
  vit.reference_samples = 100000;
  vit.where = {"built-in class vit", 0, 0};
  v.push_back(vit);
  workloads::JobClassConfig bert;
  bert.name = "bert";
  bert.reference = {.peak_W = 320.72, .peak_s = 169.25, .valley_W = 67.01, .valley_s = 5.98};
  bert.reference_samples = 100000;
  bert.where = {"built-in class bert", 0, 0};
  v.push_back(bert);
  return v;
}

TablePredictor::TablePredictor(const std::vector<workloads::JobClassConfig>& classes) {
  for (auto& c : builtin_classes()) classes_[c.name] = c;
  for (const auto& c : classes) classes_[c.name] = c;
}

std::vector<std::string> TablePredictor::class_names() const {
  std::vector<std::string> names;
  for (const auto& [n, c] : classes_) names.push_back(n);
  return names;
}

const workloads::JobClassConfig& TablePredictor::job_class(const std::string& name) const {
  auto it = classes_.find(name);
  if (it == classes_.end()) throw std::out_of_range(name);
  return it->second;
}

PhaseProfile TablePredictor::predict(const JobSpec& job, const GpuHardware& /*gpu*/) const {
  if (job.phases) return *job.phases;
  if (job.job_class.empty())
    throw workloads::ConfigError(job.class_origin, "class",
                                 fmt::format("job {} has neither a class nor phase values", job.id));
  auto it = classes_.find(job.job_class);
  if (it == classes_.end())
    throw workloads::ConfigError(
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
  return p;
}

}  // namespace fleetwatt::models
