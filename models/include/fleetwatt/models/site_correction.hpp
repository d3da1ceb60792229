// A site's measured runs as corrections of the predictions there. Per GPU, the machine's GPU and host
// factors, fitted on all its runs (models/hardware/time_split.hpp). Per (GPU, workload) the site has runs of,
// a time and a power factor: exp(w x the mean log(measured / predicted) of those runs; for power, of the
// draw above the board's idle, which is what the work sets), the weight w
// shrinking it toward the datasheet prediction as few-shot calibration measured on the fitting data with one
// run per group (PredictorFit::site: one weight for a job that repeats a run's batch and power limit, one for
// a job that varies them), and shrinking less the more runs there are (credibility); and a band, the fitted
// half-width pooled with the site's own leave-one-run-out residuals. The few-shot evaluation
// (models/few_shot.hpp) and the site predictor (models/site_predictor.hpp) apply these same rules, so
// `validate --few-shot`, `validate --site`, `predict --site` and `run` agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/hardware/time_split.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/models/predictors/predictor_constants.hpp"

namespace fleetwatt::models {

/// Whether a predicted draw sits at the power limit in force (within 1 %): the limit binds there, and a
/// factor fitted on the draw the GPU chooses does not apply. `limit_W` 0: no limit known.
[[nodiscard]] bool binds(double predicted_W, double limit_W) noexcept;

/// A predicted draw corrected by `factor`, which scales the draw above the board's idle (`idle_W`): a GPU
/// that does no work draws its idle whatever the workload, so a run that measured a workload's draw says
/// how far its work lifts the GPU above idle, and a draw at or below idle is kept. Kept where the limit
/// binds, never above the limit otherwise.
[[nodiscard]] double corrected_power(double predicted_W, double factor, double limit_W,
                                     double idle_W) noexcept;

/// The idle draw power factors scale from: the GPU preset's idle; 0 for a GPU without a preset (given in a
/// scenario), whose draws are then scaled whole. One rule for the runs' ratios and the jobs' corrections.
[[nodiscard]] double correction_idle_W(const std::string& gpu_id);

/// log(measured / predicted): what a run says of a time factor; NaN where either is not positive (not
/// measured, or nothing predicted).
[[nodiscard]] double log_ratio(double measured, double predicted) noexcept;

/// log((measured - idle) / (predicted - idle)): what a run says of the power factor; NaN where either draw
/// is not above idle (nothing to scale) or was not measured.
[[nodiscard]] double power_log_ratio(double measured_W, double predicted_W, double idle_W) noexcept;

/// The weight of the mean of `n` runs given `w1`, the weight of one run: Buhlmann's credibility n / (n + k),
/// k = (1 - w1) / w1 (the ratio of the spread of runs about their group's level to the spread of the
/// levels, which w1 measured), so more runs shrink less; 0 for no run.
[[nodiscard]] double credibility(double w1, std::size_t n) noexcept;

/// A run as the shrinkage tells runs apart: a job at a measured run's batch and power limit repeats it.
struct RunConfig {
  std::uint32_t batch = 0;
  double power_limit_W = 0.0;  ///< 0: the board's default
  [[nodiscard]] bool operator==(const RunConfig& o) const noexcept {
    return batch == o.batch && power_limit_W == o.power_limit_W;
  }
};

/// The workload a job is a run of, for grouping a site's runs: its model's name, with " (forward)" for a
/// job whose training step is one forward pass (inference, a frozen backbone); empty for a job given by
/// FLOPs alone, which no run stands for.
[[nodiscard]] std::string site_workload(const jobs::JobSpec& job);

class SiteCorrection {
 public:
  /// One measured run: its GPU preset, workload, configuration, its measured and zero-shot epoch (what
  /// sets the zero-shot one in `split`: where that is known, the run's time ratio is taken against the
  /// prediction re-timed by its GPU's machine factors), power_log_ratio of its average power (NaN: not
  /// measured); `binds`: its predicted power sat at its limit.
  struct Run {
    std::string gpu, workload;
    RunConfig config;
    double measured_s = 0.0, predicted_s = 0.0;  ///< epochs; 0 measured: time not measured
    TimeSplit split;
    double log_power = 0.0;
    bool binds = false;
  };
  /// What a job's prediction is corrected by: `runs` 0 where the site has no run of its (GPU, workload),
  /// the factors then 1 and the band the predictor's own.
  struct Factors {
    std::size_t runs = 0;
    double time = 1.0, power = 1.0;
    PredictionBand band;
  };

  /// `level`: the band's level (the fit's [band] level); `machine_prior`: the prior on each GPU's machine
  /// factors, fitted on all the site's runs of that GPU (models/hardware/time_split.hpp).
  SiteCorrection(std::vector<Run> runs, const SiteShrinkage& shrinkage, double level,
                 double machine_prior = kMachinePrior);
  // The groups point into the runs: a move keeps them (the runs' storage moves whole), a copy would not.
  SiteCorrection(const SiteCorrection&) = delete;
  SiteCorrection& operator=(const SiteCorrection&) = delete;
  SiteCorrection(SiteCorrection&&) noexcept = default;
  SiteCorrection& operator=(SiteCorrection&&) noexcept = default;
  /// The GPU and host factors of the site's machines of GPU preset `gpu` ((1, 1) where it has no run).
  [[nodiscard]] MachineFactors machine(const std::string& gpu) const;

  [[nodiscard]] Factors factors(const std::string& gpu, const std::string& workload,
                                const RunConfig& config) const;
  [[nodiscard]] const std::vector<Run>& runs() const noexcept { return runs_; }
  /// The band's half-widths in use, |ln(measured / corrected)|, for a job that repeats a run's batch and
  /// power limit and (`_varied`, at least as wide) for one that varies them, and the site's own residuals
  /// they pool.
  [[nodiscard]] double time_band() const noexcept { return time_band_; }
  [[nodiscard]] double power_band() const noexcept { return power_band_; }
  [[nodiscard]] double time_band_varied() const noexcept { return time_band_varied_; }
  [[nodiscard]] double power_band_varied() const noexcept { return power_band_varied_; }
  [[nodiscard]] std::size_t own_residuals() const noexcept { return own_residuals_; }

  /// Pseudo-count of the fitted half-width against the site's own residuals: with 10 of its own, the two
  /// weigh alike.
  static constexpr double kPriorResiduals = 10.0;

 private:
  /// A run with its log(measured / predicted) epoch time, the prediction re-timed by its machine's factors
  /// (NaN: not measured).
  struct TimedRun {
    const Run* run = nullptr;
    double log_time = 0.0;
  };
  struct Group {
    std::vector<TimedRun> runs;
  };
  std::vector<Run> runs_;
  SiteShrinkage shrinkage_;
  double level_ = 0.0;
  double time_band_ = 0.0, power_band_ = 0.0;
  double time_band_varied_ = 0.0, power_band_varied_ = 0.0;
  std::size_t own_residuals_ = 0;
  std::map<std::pair<std::string, std::string>, Group> groups_;
  std::map<std::string, MachineFactors> machines_;

  struct GroupFactors {
    double time = 1.0, power = 1.0;
    bool repeat = false;  ///< a run used has `config`'s batch and power limit
  };
  /// Factors from `group`'s runs other than `skip` (nullptr: all).
  [[nodiscard]] GroupFactors factors_from(const Group& group, const RunConfig& config, const Run* skip,
                                          std::size_t& used) const;
};

}  // namespace fleetwatt::models
