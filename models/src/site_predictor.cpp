// Predictions corrected to a site (models/site_predictor.hpp).
#include "fleetwatt/models/site_predictor.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"

namespace fleetwatt::models {

SiteCorrection::Factors SitePredictor::factors(const JobSpec& job, const GpuHardware& gpu) const {
  // A limit at or above the board's maximum is its default: runs record it as 0.
  const double limit = power_limit_W_ > 0.0 && power_limit_W_ < gpu.tdp_W ? power_limit_W_ : 0.0;
  return site_->factors(gpu.id, site_workload(job), {job.meta.batch_size, limit});
}

namespace {

/// The inner predictor as the datasheet predictor, where it is one and the job has its metadata.
const DatasheetPredictor* datasheet(const PowerPredictor& inner, const JobSpec& job) {
  const auto* ds = dynamic_cast<const DatasheetPredictor*>(&inner);
  return ds != nullptr && DatasheetPredictor::has_metadata(job) ? ds : nullptr;
}

}  // namespace

double SitePredictor::compute_scale(const JobSpec& job, const GpuHardware& gpu) const {
  const MachineFactors m = site_->machine(gpu.id);
  const DatasheetPredictor* ds = datasheet(*inner_, job);
  return m == MachineFactors{} || ds == nullptr ? 1.0 : ds->split(job, gpu).work_scale(m.gpu, m.host);
}

double SitePredictor::step_s(const JobSpec& job, const GpuHardware& gpu) const {
  const DatasheetPredictor* ds = datasheet(*inner_, job);
  if (ds == nullptr) return 0.0;
  const StepBreakdown b = ds->explain(job, gpu);
  const TimeSplit s = DatasheetPredictor::split(b);
  const MachineFactors m = site_->machine(gpu.id);
  const double step = s.known() ? s.one_step().time_s(m.gpu, m.host) : b.step_s;
  return step * factors(job, gpu).time;
}

EpochPlan SitePredictor::plan(const JobSpec& job, const GpuHardware& gpu) const {
  // The machine first: a job of any workload on a GPU the site has runs of runs at that machine's speeds.
  // The datasheet's own plan comes with the split that re-times it, from one breakdown.
  const MachineFactors m = site_->machine(gpu.id);
  const DatasheetPredictor* ds = datasheet(*inner_, job);
  EpochPlan p;
  if (ds != nullptr && !job.phases) {
    const StepBreakdown b = ds->explain(job, gpu);
    p = b.plan;
    p[jobs::PartKind::compute].s *= DatasheetPredictor::split(b).work_scale(m.gpu, m.host);
  } else {
    p = inner_->plan(job, gpu);
    p[jobs::PartKind::compute].s *= compute_scale(job, gpu);
  }
  const SiteCorrection::Factors f = factors(job, gpu);
  if (f.runs == 0) return p;
  const double limit = limit_W(gpu), idle_W = correction_idle_W(gpu.id);
  p.each_part([&](jobs::EpochPart& part) {
    part.s *= f.time;
    part.W = corrected_power(part.W, f.power, limit, idle_W);
  });
  return p;
}

PredictionBand SitePredictor::band(const JobSpec& job, const GpuHardware& gpu) const {
  const SiteCorrection::Factors f = factors(job, gpu);
  return f.runs > 0 && f.band.level > 0.0 ? f.band : inner_->band(job, gpu);
}

UncertaintyBand SitePredictor::uncertainty(const JobSpec& job, const GpuHardware& gpu) const {
  const SiteCorrection::Factors f = factors(job, gpu);
  if (f.runs == 0 || !(f.band.level > 0.0)) return inner_->uncertainty(job, gpu);
  return {1.0 - f.band.time_low * f.band.power_low, f.band.time_high * f.band.power_high - 1.0};
}

std::shared_ptr<const SiteCorrection> site_correction(
    const SiteFile& site, const std::function<Prediction(const Measurement&)>& zero_shot,
    const PredictorFit& fit) {
  std::vector<SiteCorrection::Run> runs;
  for (const SiteRun& s : site.runs) {
    const Measurement m = site_measurement(s);
    Prediction p;
    try {
      p = zero_shot(m);
    } catch (const core::ConfigError&) {
      throw;
    } catch (const std::exception& e) {
      throw core::ConfigError(s.where, "run", fmt::format("cannot be predicted: {}", e.what()));
    }
    if (!(p.epoch_s > 0.0))
      throw core::ConfigError(s.where, "run",
                              "cannot be predicted: no epoch time (a model without its size?)");
    SiteCorrection::Run r;
    r.gpu = m.gpu;
    r.workload = site_workload(as_predicted(m));
    r.config = {m.job.meta.batch_size, m.power_limit_W};
    r.measured_s = m.epoch_s;
    r.predicted_s = p.epoch_s;
    r.split = p.split;
    r.log_power = power_log_ratio(m.avg_power_W, p.avg_power_W, correction_idle_W(m.gpu));
    const double limit = m.power_limit_W > 0.0 ? m.power_limit_W
                         : m.tdp_W > 0.0       ? m.tdp_W
                                               : find_gpu(m.gpu).tdp_W;
    r.binds = binds(p.avg_power_W, limit);
    runs.push_back(std::move(r));
  }
  return std::make_shared<const SiteCorrection>(std::move(runs), fit.site, fit.band.level);
}

std::shared_ptr<const SiteCorrection> load_site(const std::filesystem::path& path, const std::string& kind,
                                                const std::vector<GpuHardware>& extra) {
  return site_correction(read_site_file(path), registry_predictor(kind, extra));
}

}  // namespace fleetwatt::models
