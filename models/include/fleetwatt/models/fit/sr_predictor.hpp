// The "sr" predictor: a site's own fitted symbolic-regression formulas (a model file written by
// `fleetwatt fit`) turning job metadata into the per-GPU square wave. Scenario:
//   [predictor]
//   kind = "sr"
//   path = "site-model.toml"   # relative to the scenario file's folder
// The file must hold models named peak_W and peak_s; valley_W and valley_s are optional (0 without).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "fleetwatt/models/fit/sr_model.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/models/predictors/predictor_config.hpp"

namespace fleetwatt::models::fit {

/// Job metadata names a formula may use as features, and what they read from a JobSpec.
[[nodiscard]] const std::vector<std::string>& job_feature_names();

class SrPredictor final : public PowerPredictor {
 public:
  /// Loads and checks the model file; throws ConfigError (file, line, column) for a bad file, for missing
  /// peak_W/peak_s models and for features a job cannot supply.
  explicit SrPredictor(const std::filesystem::path& model_file);
  /// From the scenario's [predictor] section (its parameters: params()).
  [[nodiscard]] static std::unique_ptr<SrPredictor> from_config(const models::PredictorConfig& config);
  /// The declared [predictor] parameters of kind "sr".
  [[nodiscard]] static jobs::ParamSpecs params();

  [[nodiscard]] std::string_view name() const override { return "sr"; }
  [[nodiscard]] EpochPlan plan(const JobSpec& job, const GpuHardware& gpu) const override;
  /// The models' mean test MRE (peak power plus peak duration), as a symmetric relative band on energy.
  [[nodiscard]] UncertaintyBand uncertainty(const JobSpec& job, const GpuHardware& gpu) const override;

  [[nodiscard]] const SrModelFile& models() const noexcept { return file_; }

 private:
  [[nodiscard]] double eval(const SrTargetModel& m, const JobSpec& job) const;

  std::filesystem::path path_;
  SrModelFile file_;
  const SrTargetModel* peak_W_ = nullptr;
  const SrTargetModel* peak_s_ = nullptr;
  const SrTargetModel* valley_W_ = nullptr;
  const SrTargetModel* valley_s_ = nullptr;
};

}  // namespace fleetwatt::models::fit
