// Predicted vs measured over a MeasurementSet: mean relative errors of time and power and band coverage,
// per GPU and overall; and the registry predictors as prediction functions.
#include "fleetwatt/models/validation_report.hpp"

#include "fleetwatt/models/site_predictor.hpp"

#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>

#include "fleetwatt/models/fit/predictor_fit.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"

namespace fleetwatt::models {
namespace {

/// Running sums of one group, turned into an ErrorSummary at the end.
struct Sums {
  std::size_t rows = 0, power_rows = 0, banded = 0, banded_power = 0;
  double time_err = 0.0, power_err = 0.0, time_in = 0.0, power_in = 0.0, level = 0.0;

  void add(const RowComparison& c) {
    ++rows;
    time_err += c.time_error;
    if (c.measured_W > 0.0) {
      ++power_rows;
      power_err += c.power_error;
    }
    if (c.banded) {
      ++banded;
      time_in += c.time_in_band ? 1.0 : 0.0;
      if (c.measured_W > 0.0) {
        ++banded_power;
        power_in += c.power_in_band ? 1.0 : 0.0;
      }
    }
  }
  [[nodiscard]] ErrorSummary summary(const std::vector<double>& levels) const {
    ErrorSummary s;
    s.rows = rows;
    s.time_mre = rows ? time_err / double(rows) : 0.0;
    s.power_rows = power_rows;
    s.power_mre = power_rows ? power_err / double(power_rows) : 0.0;
    s.banded_rows = banded;
    s.time_in_band = banded ? time_in / double(banded) : 0.0;
    s.power_in_band = banded_power ? power_in / double(banded_power) : 0.0;
    double sum = 0.0;
    for (const double l : levels) sum += l;
    s.band_level = levels.empty() ? 0.0 : sum / double(levels.size());
    return s;
  }
};

}  // namespace

ValidationReport validate_measurements(const MeasurementSet& set,
                                       const std::function<Prediction(const Measurement&)>& predict) {
  ValidationReport report;
  report.skipped = set.skipped;
  std::map<std::string, Sums> per_gpu;
  std::map<std::string, std::vector<double>> levels;
  Sums all;
  std::vector<double> all_levels;
  for (std::size_t i = 0; i < set.rows.size(); ++i) {
    const Measurement& m = set.rows[i];
    // The time of the kind measured: per epoch where the row has it, else per step.
    const bool per_step = m.per_step();
    const double measured_s = m.time_s();
    if (!(measured_s > 0.0)) {
      report.skipped.push_back({m.where, "no measured time"});
      continue;
    }
    Prediction p;
    try {
      p = predict(m);
    } catch (const std::exception& e) {
      report.skipped.push_back({m.where, e.what()});
      continue;
    }
    RowComparison c;
    c.row = i;
    c.measured_s = measured_s;
    c.predicted_s = per_step ? p.step_s : p.epoch_s;
    c.time_error = std::abs(c.predicted_s - measured_s) / measured_s;
    c.measured_W = m.avg_power_W > 0.0 ? m.avg_power_W : 0.0;
    c.predicted_W = p.avg_power_W;
    if (c.measured_W > 0.0) c.power_error = std::abs(c.predicted_W - c.measured_W) / c.measured_W;
    c.split = per_step ? p.split.one_step() : p.split;
    // Compared only where the prediction says how its time splits (a datasheet one, not a site's
    // correction or another predictor's): without it the model states no share, which is not a share of 0.
    if (m.gpu_busy > 0.0 && c.split.known())
      c.measured_busy = m.gpu_busy, c.predicted_busy = c.split.busy_share();
    c.banded = p.band.level > 0.0;
    if (c.banded) {
      c.time_in_band =
          measured_s >= c.predicted_s * p.band.time_low && measured_s <= c.predicted_s * p.band.time_high;
      c.power_in_band = c.measured_W > 0.0 && c.measured_W >= c.predicted_W * p.band.power_low &&
                        c.measured_W <= c.predicted_W * p.band.power_high;
      levels[m.gpu].push_back(p.band.level);
      all_levels.push_back(p.band.level);
    }
    per_gpu[m.gpu].add(c);
    all.add(c);
    report.compared.push_back(c);
  }
  for (const auto& [gpu, sums] : per_gpu) report.gpus[gpu] = sums.summary(levels[gpu]);
  report.all = all.summary(all_levels);
  return report;
}

std::vector<BusyShare> busy_shares(const MeasurementSet& set, const ValidationReport& report) {
  std::map<std::pair<std::string, std::string>, BusyShare> groups;
  for (const RowComparison& c : report.compared) {
    if (!(c.measured_busy > 0.0)) continue;
    const Measurement& m = set.rows.at(c.row);
    BusyShare& b = groups[{m.gpu, m.workload}];
    b.gpu = m.gpu, b.workload = m.workload;
    ++b.rows;
    b.measured += c.measured_busy, b.predicted += c.predicted_busy;
  }
  std::vector<BusyShare> out;
  for (auto& [key, b] : groups) {
    b.measured /= static_cast<double>(b.rows), b.predicted /= static_cast<double>(b.rows);
    out.push_back(b);
  }
  return out;
}

jobs::JobSpec as_predicted(const Measurement& m) {
  jobs::JobSpec job = m.job;
  auto& meta = job.meta;
  if (m.shape) {
    // A model measured in another shape than the zoo's: the job's own parameters and FLOPs.
    const ModelCount measured = transformer(*m.shape);
    meta.params = measured.params;
    meta.flops_per_sample = measured.forward_flops;  // (an inference row's training FLOPs: the reader's)
  } else if (known_by_flops_only(m)) {
    // FLOPs quoted at an unstated input size: the fit's estimate of the work the runs did.
    const auto& work = default_predictor_fit().workload_work;
    if (const auto it = work.find(m.workload); it != work.end()) {
      meta.flops_per_sample *= it->second;
      if (meta.training_flops_per_sample > 0.0) meta.training_flops_per_sample *= it->second;
    }
  }
  return job;
}

std::function<Prediction(const Measurement&)> registry_predictor(const std::string& kind,
                                                                 const std::vector<GpuHardware>& extra,
                                                                 std::shared_ptr<const SiteCorrection> site) {
  const PredictorRegistry registry = PredictorRegistry::with_builtins();
  bool takes_limit = false;
  bool known = false;
  for (const auto& e : registry.entries()) {
    if (e.name != kind) continue;
    known = true;
    for (const auto& spec : e.params) takes_limit = takes_limit || spec.name == "power_limit_w";
  }
  models::PredictorConfig base;
  base.kind = kind;
  base.kind_origin = {"command line", 0, 0};
  if (!known) (void)registry.make(base);  // throws the ConfigError listing the known predictors
  // One predictor per distinct power limit, built on first use.
  auto cache = std::make_shared<std::map<double, std::shared_ptr<const PowerPredictor>>>();
  return [registry, takes_limit, base, cache, extra, site](const Measurement& m) -> Prediction {
    const double limit = takes_limit ? m.power_limit_W : 0.0;
    auto& slot = (*cache)[limit];
    if (!slot) {
      models::PredictorConfig config = base;
      if (limit > 0.0) config.params.set("power_limit_w", {limit, m.where});
      if (site)
        slot = std::make_shared<SitePredictor>(registry.make(config), site, limit);
      else
        slot = registry.make(config);
    }
    GpuHardware gpu = find_gpu(m.gpu, extra);
    if (m.tdp_W > 0.0) gpu.tdp_W = m.tdp_W;
    const jobs::JobSpec job = as_predicted(m);
    const jobs::EpochPlan plan = slot->plan(job, gpu);
    const jobs::PhaseProfile profile = plan.profile();
    Prediction p;
    p.epoch_s = profile.epoch_s();
    p.avg_power_W = profile.mean_W();
    // A step: the datasheet breakdown's step time; other predictors: the epoch's steps (its peak) over the
    // steps per epoch (one for per-step rows, whose dataset is one global batch).
    p.step_s = profile.peak_s;
    const auto* corrected = dynamic_cast<const SitePredictor*>(slot.get());
    const PowerPredictor& inner = corrected ? corrected->inner() : *slot;
    if (const auto* ds = dynamic_cast<const DatasheetPredictor*>(&inner);
        ds != nullptr && DatasheetPredictor::has_metadata(job)) {
      if (corrected) {
        p.step_s = corrected->step_s(job, gpu);
      } else {  // (a site's split would be of the datasheet's own prediction, not the corrected one)
        const StepBreakdown b = ds->explain(job, gpu);
        p.step_s = b.step_s;
        p.split = DatasheetPredictor::split(b);
      }
    }
    p.band = slot->band(job, gpu);
    return p;
  };
}

}  // namespace fleetwatt::models
