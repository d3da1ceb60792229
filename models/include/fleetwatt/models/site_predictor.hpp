// A predictor corrected to a site: the inner predictor's plan with its compute re-timed by the site's
// machine factors for the job's GPU (the datasheet predictor's split of the step), then every part's duration
// scaled by the site's time factor for the job's (GPU, workload) and its draw by the power factor (kept where
// the power limit binds, never above it), and the site's band; a job of a workload the site has no run of on
// that GPU takes the machine's re-timing only, and one on a GPU it has no run of is the inner predictor's
// unchanged. `predict --site`, `validate --site` and a scenario's [fleet]
// site all predict through it.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>

#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/models/predictors/predictor_constants.hpp"
#include "fleetwatt/models/site_correction.hpp"
#include "fleetwatt/models/site_file.hpp"
#include "fleetwatt/models/validation_report.hpp"

namespace fleetwatt::models {

class SitePredictor final : public PowerPredictor {
 public:
  /// `power_limit_W`: the limit the inner predictor was built with (0: each GPU's TDP).
  SitePredictor(std::unique_ptr<PowerPredictor> inner, std::shared_ptr<const SiteCorrection> site,
                double power_limit_W)
      : inner_(std::move(inner)), site_(std::move(site)), power_limit_W_(power_limit_W) {}

  [[nodiscard]] std::string_view name() const override { return inner_->name(); }
  [[nodiscard]] EpochPlan plan(const JobSpec& job, const GpuHardware& gpu) const override;
  /// The energy's: the site's band where it applies (time and power both low, or both high), else the
  /// inner predictor's.
  [[nodiscard]] UncertaintyBand uncertainty(const JobSpec& job, const GpuHardware& gpu) const override;
  /// The site's band where it has runs of the job's workload on this GPU, else the inner predictor's.
  [[nodiscard]] PredictionBand band(const JobSpec& job, const GpuHardware& gpu) const override;

  /// What the site corrects this job by.
  [[nodiscard]] SiteCorrection::Factors factors(const JobSpec& job, const GpuHardware& gpu) const;
  /// How many times as long the job's GPU work and launches take on the site's machine of that GPU as the
  /// datasheet says, together (1 where the site has no run on that GPU, or the inner predictor does not
  /// split the job's time): what the compute part of its plan is re-timed by.
  [[nodiscard]] double compute_scale(const JobSpec& job, const GpuHardware& gpu) const;
  /// The inner datasheet predictor's step re-timed by the machine and the time factor (0: another
  /// predictor, or a job without metadata).
  [[nodiscard]] double step_s(const JobSpec& job, const GpuHardware& gpu) const;
  [[nodiscard]] const PowerPredictor& inner() const noexcept { return *inner_; }
  /// The GPU and host factors of the site's machines of this GPU.
  [[nodiscard]] MachineFactors machine(const GpuHardware& gpu) const { return site_->machine(gpu.id); }
  /// The power limit in force on `gpu`.
  [[nodiscard]] double limit_W(const GpuHardware& gpu) const noexcept {
    return power_limit_W_ > 0.0 ? std::min(power_limit_W_, gpu.tdp_W) : gpu.tdp_W;
  }

 private:
  std::unique_ptr<PowerPredictor> inner_;
  std::shared_ptr<const SiteCorrection> site_;
  double power_limit_W_ = 0.0;
};

/// A site's runs as a correction: each run predicted by `zero_shot` (the predictor the site's jobs are
/// predicted with, uncorrected), with `fit`'s shrinkage and band level. A run that predictor cannot
/// predict is a core::ConfigError at its [[run]] table.
[[nodiscard]] std::shared_ptr<const SiteCorrection> site_correction(
    const SiteFile& site, const std::function<Prediction(const Measurement&)>& zero_shot,
    const PredictorFit& fit = default_predictor_fit());

/// read_site_file, then site_correction with the registry predictor `kind` (GPU presets from `extra` first).
[[nodiscard]] std::shared_ptr<const SiteCorrection> load_site(const std::filesystem::path& path,
                                                              const std::string& kind = "datasheet",
                                                              const std::vector<GpuHardware>& extra = {});

}  // namespace fleetwatt::models
