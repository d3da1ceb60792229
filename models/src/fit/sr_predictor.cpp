// The "sr" predictor: model-file loading for the simulator and metadata -> feature mapping.
#include "fleetwatt/models/fit/sr_predictor.hpp"

#include "fleetwatt/jobs/job_classes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "fleetwatt/core/file_text.hpp"
#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::models::fit {

using core::ConfigError;
using core::SourceLocation;

const std::vector<std::string>& job_feature_names() {
  static const std::vector<std::string> names{"input_size", "data_size", "params", "flops",
                                              "batch_size", "workers",   "gpus",   "epochs"};
  return names;
}

namespace {

/// The job's value of a feature; nothing when the job does not say (0 where 0 is not meaningful).
std::optional<double> job_feature(const JobSpec& job, const std::string& name) {
  const auto& m = job.meta;
  auto given = [](double v) -> std::optional<double> {
    return v > 0 ? std::optional<double>(v) : std::nullopt;
  };
  if (name == "input_size") return given(m.input_size);
  if (name == "data_size") return given(m.dataset_samples);
  if (name == "params") return given(m.params);
  if (name == "flops") return given(m.flops_per_sample);
  if (name == "batch_size") return given(m.batch_size);
  if (name == "workers") return double(m.workers);
  if (name == "gpus") return double(job.n_gpus);
  if (name == "epochs") return double(job.epochs);
  return std::nullopt;
}

}  // namespace

SrPredictor::SrPredictor(const std::filesystem::path& model_file)
    : path_(model_file), file_(load_sr_model(model_file)) {
  const SourceLocation at{model_file.string(), 0, 0};
  for (const auto& m : file_.models)
    for (const auto& f : m.features)
      if (std::find(job_feature_names().begin(), job_feature_names().end(), f) == job_feature_names().end())
        throw ConfigError(at, "models." + m.name + ".features",
                          fmt::format("'{}' is not job metadata the simulator knows (usable: {}); refit with "
                                      "--features from those columns",
                                      f, fmt::join(job_feature_names(), ", ")));
  peak_W_ = file_.find("peak_W");
  peak_s_ = file_.find("peak_s");
  valley_W_ = file_.find("valley_W");
  valley_s_ = file_.find("valley_s");
  if (!peak_W_ || !peak_s_) {
    std::vector<std::string> names;
    for (const auto& m : file_.models) names.push_back(m.name);
    throw ConfigError(at, "models",
                      fmt::format("the sr predictor needs models named peak_W and peak_s (the file has: {}); "
                                  "fit them with --target peak_W,peak_s or --role",
                                  fmt::join(names, ", ")));
  }
}

jobs::ParamSpecs SrPredictor::params() {
  return {{"path",
           jobs::ParamType::string,
           {},
           "required",
           "",
           "model file written by `fleetwatt fit` (relative to the scenario's folder)",
           {}}};
}

std::unique_ptr<SrPredictor> SrPredictor::from_config(const models::PredictorConfig& config) {
  const jobs::ParamSet params = config.params.checked(SrPredictor::params());
  if (!params.has("path"))
    throw ConfigError(config.kind_origin, "predictor.path", "the sr predictor needs path = \"MODEL.toml\"");
  std::filesystem::path p = params.get_string("path");
  if (p.is_relative()) {
    // Relative to the folder of the file that named it (the scenario).
    const std::filesystem::path origin = params.where_of("path").file;
    if (!origin.empty()) p = origin.parent_path() / p;
  }
  // A folder (path = "" names the scenario's own) is refused here, at the key: read as a file it failed
  // with the folder's name and no line.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec))
    throw ConfigError(
        params.where_of("path"), "predictor.path",
        core::missing_file(p).value_or(fmt::format("model file '{}' is not a file", p.string())));
  return std::make_unique<SrPredictor>(p);
}

double SrPredictor::eval(const SrTargetModel& m, const JobSpec& job) const {
  std::vector<double> raw;
  for (const auto& f : m.features) {
    const auto v = job_feature(job, f);
    if (!v)
      throw ConfigError(job.class_origin, f,
                        fmt::format("job {} does not give {}, which the sr predictor's {} formula ({}) needs",
                                    job.id, f, m.name, path_.string()));
    raw.push_back(*v);
  }
  const double y = m.predict(raw);
  // A formula far outside its data can go negative or non-finite: neither is a power or a duration.
  return std::isfinite(y) ? std::max(0.0, y) : 0.0;
}

EpochPlan SrPredictor::plan(const JobSpec& job, const GpuHardware& /*gpu*/) const {
  // Fitted on a site's measured phases: the peak (communication and loading included) counts as compute.
  const auto meta = jobs::with_class_defaults(job);
  if (job.phases) return EpochPlan::from_profile(*job.phases, meta);
  PhaseProfile p;
  p.peak_W = eval(*peak_W_, job);
  p.peak_s = eval(*peak_s_, job);
  if (valley_W_) p.valley_W = eval(*valley_W_, job);
  if (valley_s_) p.valley_s = eval(*valley_s_, job);
  return EpochPlan::from_profile(p, meta);
}

UncertaintyBand SrPredictor::uncertainty(const JobSpec& /*job*/, const GpuHardware& /*gpu*/) const {
  auto mre = [](const SrTargetModel* m) {
    if (!m) return 0.0;
    const auto it = m->metrics.find("test_mre_mean_percent_sr");
    return it == m->metrics.end() ? 0.0 : it->second / 100.0;
  };
  const double rel = mre(peak_W_) + mre(peak_s_);
  return {rel, rel};
}

}  // namespace fleetwatt::models::fit
