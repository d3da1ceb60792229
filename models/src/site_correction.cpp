// A site's measured runs as factors and a band (models/site_correction.hpp).
#include "fleetwatt/models/site_correction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fleetwatt/models/fit/predictor_fit.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"

namespace fleetwatt::models {

bool binds(double predicted_W, double limit_W) noexcept {
  return limit_W > 0.0 && predicted_W >= 0.99 * limit_W;
}

double corrected_power(double predicted_W, double factor, double limit_W, double idle_W) noexcept {
  if (binds(predicted_W, limit_W) || predicted_W <= idle_W) return predicted_W;
  const double corrected = idle_W + (predicted_W - idle_W) * factor;
  return limit_W > 0.0 ? std::min(corrected, limit_W) : corrected;
}

double correction_idle_W(const std::string& gpu_id) {
  const GpuHardware* preset = find_gpu_preset(gpu_id);
  return preset ? preset->idle_W : 0.0;
}

double power_log_ratio(double measured_W, double predicted_W, double idle_W) noexcept {
  return measured_W > idle_W && predicted_W > idle_W
             ? std::log((measured_W - idle_W) / (predicted_W - idle_W))
             : std::numeric_limits<double>::quiet_NaN();
}

double log_ratio(double measured, double predicted) noexcept {
  return measured > 0.0 && predicted > 0.0 ? std::log(measured / predicted)
                                           : std::numeric_limits<double>::quiet_NaN();
}

double credibility(double w1, std::size_t n) noexcept {
  if (n == 0 || !(w1 > 0.0)) return 0.0;
  if (w1 >= 1.0) return 1.0;
  const double k = (1.0 - w1) / w1;
  return static_cast<double>(n) / (static_cast<double>(n) + k);
}

std::string site_workload(const jobs::JobSpec& job) {
  const auto& m = job.meta;
  if (m.model.empty()) return {};
  const bool forward = m.flops_per_sample > 0.0 && m.training_flops_per_sample == m.flops_per_sample;
  return forward ? m.model + " (forward)" : m.model;
}

SiteCorrection::SiteCorrection(std::vector<Run> runs, const SiteShrinkage& shrinkage, double level,
                               double machine_prior)
    : runs_(std::move(runs)), shrinkage_(shrinkage), level_(level) {
  // Each GPU's machine factors from all its runs, every workload's together; the workloads' own factors
  // correct what those leave.
  std::map<std::string, std::vector<SplitRun>> by_gpu;
  for (const Run& r : runs_) by_gpu[r.gpu].push_back({r.split, r.measured_s});
  for (const auto& [gpu, split_runs] : by_gpu)
    machines_[gpu] = fit_machine_factors(split_runs, machine_prior);
  for (const Run& r : runs_) {
    const MachineFactors& m = machines_[r.gpu];
    const double predicted_s = r.split.known() ? r.split.time_s(m.gpu, m.host) : r.predicted_s;
    groups_[{r.gpu, r.workload}].runs.push_back({&r, log_ratio(r.measured_s, predicted_s)});
  }
  // The site's own residuals: each run predicted from the other runs of its group; those whose group has
  // no other run at their batch and power limit are varied ones too.
  std::vector<double> time, power, time_varied, power_varied;
  for (const auto& [key, group] : groups_) {
    if (group.runs.size() < 2) continue;
    for (const auto& [r, log_time] : group.runs) {
      std::size_t used = 0;
      const GroupFactors f = factors_from(group, r->config, r, used);
      if (!std::isnan(log_time)) {
        time.push_back(std::abs(log_time - std::log(f.time)));
        if (!f.repeat) time_varied.push_back(time.back());
      }
      if (!std::isnan(r->log_power) && !r->binds) {
        power.push_back(std::abs(r->log_power - std::log(f.power)));
        if (!f.repeat) power_varied.push_back(power.back());
      }
    }
  }
  own_residuals_ = time.size();
  const auto pooled = [&](const std::vector<double>& own, double fitted) {
    if (own.empty()) return fitted;
    const double n = static_cast<double>(own.size());
    return (kPriorResiduals * fitted + n * conformal_quantile(own, level_)) / (kPriorResiduals + n);
  };
  time_band_ = pooled(time, shrinkage_.time_band);
  power_band_ = pooled(power, shrinkage_.power_band);
  // A job that varies its runs' batch or power limit: the fitted varied band pooled with the site's varied
  // residuals, never narrower than the band of all.
  time_band_varied_ = std::max(time_band_, pooled(time_varied, shrinkage_.time_band_varied));
  power_band_varied_ = std::max(power_band_, pooled(power_varied, shrinkage_.power_band_varied));
}

SiteCorrection::GroupFactors SiteCorrection::factors_from(const Group& group, const RunConfig& config,
                                                          const Run* skip, std::size_t& used) const {
  double st = 0.0, sp = 0.0;
  std::size_t nt = 0, np = 0;
  bool repeat = false;
  used = 0;
  for (const auto& [r, log_time] : group.runs) {
    if (r == skip) continue;
    ++used;
    repeat = repeat || r->config == config;
    if (!std::isnan(log_time)) st += log_time, ++nt;
    if (!std::isnan(r->log_power)) sp += r->log_power, ++np;
  }
  const double wt = credibility(repeat ? shrinkage_.time_repeat : shrinkage_.time_varied, nt);
  const double wp = credibility(repeat ? shrinkage_.power_repeat : shrinkage_.power_varied, np);
  return {nt ? std::exp(wt * st / static_cast<double>(nt)) : 1.0,
          np ? std::exp(wp * sp / static_cast<double>(np)) : 1.0, repeat};
}

MachineFactors SiteCorrection::machine(const std::string& gpu) const {
  const auto it = machines_.find(gpu);
  return it == machines_.end() ? MachineFactors{} : it->second;
}

SiteCorrection::Factors SiteCorrection::factors(const std::string& gpu, const std::string& workload,
                                                const RunConfig& config) const {
  Factors f;
  const auto it = groups_.find({gpu, workload});
  if (workload.empty() || it == groups_.end()) return f;
  const GroupFactors g = factors_from(it->second, config, nullptr, f.runs);
  f.time = g.time;
  f.power = g.power;
  const double ht = g.repeat ? time_band_ : time_band_varied_;
  const double hp = g.repeat ? power_band_ : power_band_varied_;
  if (ht > 0.0 || hp > 0.0) f.band = {level_, std::exp(-ht), std::exp(ht), std::exp(-hp), std::exp(hp)};
  return f;
}

}  // namespace fleetwatt::models
