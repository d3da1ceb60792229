// Joint fit of the default predictor's constants, leave-one-GPU-out validation and the conformal band (see
// the header). Parameters are fitted in unconstrained coordinates: efficiencies, shares and fractions through
// a logistic (so they stay in (0, 1)), positive constants through exp.
#include "fleetwatt/models/fit/predictor_fit.hpp"

#include <fmt/format.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"
#include "fleetwatt/models/training/training_io.hpp"

namespace fleetwatt::models {
namespace {

using jobs::Precision;
using jobs::SoftwareStack;

// ---------------------------------------------------------------------------------------------------------
// Fitting

enum class Transform { logistic, exponential };

double forward(Transform t, double theta) {
  return t == Transform::logistic ? 1.0 / (1.0 + std::exp(-theta)) : std::exp(theta);
}
double inverse(Transform t, double x) {
  if (t == Transform::logistic) {
    x = std::clamp(x, 1e-6, 1.0 - 1e-6);
    return std::log(x / (1.0 - x));
  }
  return std::log(std::max(x, 1e-300));
}

/// One free constant: where it lives in the working fit, its transform, and whether a ridge penalty pulls
/// its log toward 0 (a factor toward 1).
struct Slot {
  double* target;
  Transform transform;
  bool ridge = false;
};

struct Residuals {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };

  PredictorFit* work;
  std::vector<Slot> slots;
  const std::vector<const PreparedRow*>* rows;
  std::vector<double> time_weight, power_weight;  ///< per row (0: not measured)
  double ridge;
  int n_values = 0;
  /// Per-GPU floors as factors on the rule (the rule moves with the fitted floor fractions).
  std::map<std::string, double> floor_factor;
  std::map<std::string, GpuHardware> floor_gpu;

  [[nodiscard]] int inputs() const { return static_cast<int>(slots.size()); }
  [[nodiscard]] int values() const { return n_values; }

  void apply(const Eigen::VectorXd& theta) const {
    for (std::size_t i = 0; i < slots.size(); ++i)
      *slots[i].target = forward(slots[i].transform, theta(static_cast<Eigen::Index>(i)));
    for (const auto& [g, factor] : floor_factor) {
      work->power.gpu_floor_W.erase(g);
      work->power.gpu_floor_W[g] = factor * resident_floor(floor_gpu.at(g), work->power);
    }
  }

  int operator()(const Eigen::VectorXd& theta, Eigen::VectorXd& f) const {
    apply(theta);
    Eigen::Index k = 0;
    for (std::size_t i = 0; i < rows->size(); ++i) {
      const PreparedRow& r = *(*rows)[i];
      const RowPrediction p = predict_row(r, *work);
      if (time_weight[i] > 0.0) f(k++) = time_weight[i] * std::log(p.time_s(*r.row) / r.row->time_s());
      if (power_weight[i] > 0.0) f(k++) = power_weight[i] * std::log(p.avg_power_W / r.row->avg_power_W);
    }
    for (const Slot& s : slots)
      if (s.ridge) f(k++) = ridge * std::log(*s.target);
    for (Eigen::Index i = 0; i < f.size(); ++i)
      if (!std::isfinite(f(i))) f(i) = 1e6;
    return 0;
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------------------

std::vector<PreparedRow> prepare_rows(const MeasurementSet& set, std::vector<SkippedMeasurement>* skipped) {
  std::vector<PreparedRow> out;
  out.reserve(set.rows.size());
  const DatasheetParams defaults;  // checkpoint size and storage bandwidth, as the predictor's defaults
  for (const Measurement& m : set.rows) {
    PreparedRow r;
    r.row = &m;
    try {
      r.gpu = find_gpu(m.gpu);
      if (m.shape) {
        r.model = transformer(*m.shape);
        r.model.name = m.job.meta.model + " (as measured)";
      } else {
        r.model = resolve_model(m.job.meta, m.where);
      }
    } catch (const std::exception& e) {
      if (skipped) skipped->push_back({m.where, e.what()});
      continue;
    }
    if (m.tdp_W > 0.0) r.gpu.tdp_W = m.tdp_W;
    r.inputs = step_inputs(m.job, r.model, m.power_limit_W, TrainingIoConfig{}.default_workers);
    r.inputs.updates_weights = !m.inference;
    // Per-step measurements time the GPU's steps on synthetic inputs: no loader.
    r.inputs.host_loading = !m.per_step();
    r.steps_per_epoch = std::ceil(m.job.meta.dataset_samples / std::max(1u, m.job.meta.batch_size));
    // The datasheet predictor's default storage: 1 GB/s per GPU that writes; these runs are data parallel
    // without ZeRO, so one GPU writes the whole checkpoint.
    const double storage = defaults.storage_Bps > 0.0 ? defaults.storage_Bps : 1e9;
    r.checkpoint_s = m.inference ? 0.0 : defaults.checkpoint_bytes_per_param * r.model.params / storage;
    r.in_fitted_domain = in_fitted_domain(m.job.meta);
    if (known_by_flops_only(m)) r.work_key = m.workload;
    out.push_back(std::move(r));
  }
  return out;
}

RowPrediction predict_row(const PreparedRow& r, const PredictorFit& fit) {
  StepInputs in = r.inputs;
  if (!r.work_key.empty()) {
    const auto it = fit.workload_work.find(r.work_key);
    if (it != fit.workload_work.end()) in.work_scale = it->second;
  }
  const RooflineStep s = roofline_step(r.model, in, r.gpu, fit.time, fit.power);
  RowPrediction p;
  p.step_s = s.step_s;
  const double end_s = r.row && r.row->inference ? 0.0 : fit.time.epoch_end_s + r.checkpoint_s;
  p.epoch_s = r.steps_per_epoch * s.step_s + end_s;
  const double energy =
      r.steps_per_epoch * (s.work_s * s.power_W + s.io_stall_s * s.floor_W) + end_s * s.floor_W;
  p.avg_power_W = energy / p.epoch_s;
  p.band_class = band_class(r.model.family, !r.work_key.empty());
  p.split = time_split(s, r.steps_per_epoch, s.step_s, end_s);
  return p;
}

namespace {

std::map<std::string, double> gemm_ratios(const std::vector<GemmSample>& kernels,
                                          const std::map<std::string, int>& fitted_gpus,
                                          const std::set<std::string>& families) {
  // Only the kernels of GPUs the fit sees: leaving a GPU out leaves its kernels out too.
  std::vector<GemmSample> kept;
  for (const auto& k : kernels)
    if (fitted_gpus.count(k.gpu)) kept.push_back(k);
  std::map<std::string, double> out;
  if (kept.empty()) return out;
  const GemmEfficiencyFit gemm = fit_gemm_efficiency(kept);
  for (const auto& f : families) out[f] = gemm.curve(f).eta_max / gemm.pooled.eta_max;
  return out;
}

}  // namespace

PredictorFit fit_predictor(const std::vector<PreparedRow>& all, const FitOptions& options) {
  PredictorFit work = options.start ? *options.start : PredictorFit{};
  work.time.family_compute.clear(), work.time.family_memory.clear();
  work.power.gpu_floor_W.clear(), work.power.gpu_saturation.clear();
  work.workload_work.clear();
  std::vector<const PreparedRow*> rows;
  for (const auto& r : all) rows.push_back(&r);

  // What the rows can tell: only constants with data behind them are free.
  std::map<std::string, int> time_rows, power_rows;
  std::set<std::string> families;
  bool epochs = false, images = false, compiled = false, tensor_path = false, hbm = false, gddr = false;
  std::array<bool, kOpClasses> op_used{};
  std::array<bool, kPowerClasses> class_power{};
  for (const auto* r : rows) {
    const Measurement& m = *r->row;
    if (m.time_s() > 0.0) {
      ++time_rows[r->gpu.id];
      families.insert(arch_family(r->gpu));
      epochs = epochs || (!m.per_step() && !m.inference);
      images = images || r->inputs.pixels_per_sample > 0.0;
      compiled = compiled || m.job.meta.stack == SoftwareStack::compiled;
      tensor_path = tensor_path || m.job.meta.precision != Precision::fp32;
      if (!r->work_key.empty()) work.workload_work[r->work_key] = 1.0;
      const auto ops = operator_work(r->model);
      for (std::size_t c = 0; c < kOpClasses; ++c) op_used[c] = op_used[c] || ops[c].flops > 0.0;
    }
    if (m.avg_power_W > 0.0) {
      ++power_rows[r->gpu.id];
      (has_hbm(r->gpu) ? hbm : gddr) = true;
      class_power[static_cast<std::size_t>(power_class(r->model.family))] = true;
    }
  }
  for (const auto& f : families) work.time.family_compute[f] = 1.0, work.time.family_memory[f] = 1.0;
  work.time.family_gemm = options.gemm_samples ? gemm_ratios(*options.gemm_samples, time_rows, families)
                                               : std::map<std::string, double>{};
  for (const auto& [g, n] : power_rows) {
    (void)n;
    work.power.gpu_saturation[g] = 1.0;
  }

  Residuals res{&work, {}, &rows, {}, {}, options.ridge, 0, {}, {}};
  for (const auto* r : rows)
    if (power_rows.count(r->gpu.id)) res.floor_factor[r->gpu.id] = 1.0, res.floor_gpu[r->gpu.id] = r->gpu;
  auto& t = work.time;
  auto& p = work.power;
  for (std::size_t c = 0; c < kOpClasses; ++c)
    if (op_used[c] && static_cast<OpClass>(c) != OpClass::memory)
      res.slots.push_back({&t.eta[c], Transform::logistic});
  res.slots.push_back({&t.eta_memory, Transform::logistic});
  res.slots.push_back({&t.kernel_launch_s, Transform::exponential});
  if (images) res.slots.push_back({&t.data_s_per_pixel, Transform::exponential});
  if (epochs) res.slots.push_back({&t.data_s_per_sample, Transform::exponential});
  if (epochs) res.slots.push_back({&t.epoch_end_s, Transform::exponential});
  if (compiled) res.slots.push_back({&t.stack_factor[2], Transform::logistic});
  if (tensor_path) res.slots.push_back({&t.half_tensor_factor, Transform::logistic});
  for (auto& [f, v] : t.family_compute) res.slots.push_back({&v, Transform::exponential, true});
  for (auto& [f, v] : t.family_memory) res.slots.push_back({&v, Transform::exponential, true});
  for (auto& [w, v] : work.workload_work) res.slots.push_back({&v, Transform::exponential, true});
  const std::size_t first_power_slot = res.slots.size();
  if (!power_rows.empty()) {
    if (hbm) res.slots.push_back({&p.floor_hbm, Transform::logistic});
    if (gddr) res.slots.push_back({&p.floor_gddr, Transform::logistic});
    for (std::size_t c = 0; c < kPowerClasses; ++c)
      if (class_power[c]) res.slots.push_back({&p.saturation[c], Transform::logistic});
    res.slots.push_back({&p.exponent, Transform::exponential});
    res.slots.push_back({&p.memory_weight, Transform::logistic});
    for (auto& [g, v] : p.gpu_saturation) res.slots.push_back({&v, Transform::exponential, true});
    for (auto& [g, v] : res.floor_factor) res.slots.push_back({&v, Transform::exponential, true});
  }
  // Each GPU weighs the same whatever its row count: weights 1 / sqrt(rows of that GPU and measure).
  for (const auto* r : rows) {
    const Measurement& m = *r->row;
    const double wt = m.time_s() > 0.0 ? 1.0 / std::sqrt(time_rows[r->gpu.id]) : 0.0;
    const double wp = m.avg_power_W > 0.0 ? 1.0 / std::sqrt(power_rows[r->gpu.id]) : 0.0;
    res.time_weight.push_back(wt), res.power_weight.push_back(wp);
    res.n_values += (wt > 0.0) + (wp > 0.0);
  }
  const std::size_t n_time_slots = power_rows.empty() ? res.slots.size() : first_power_slot;
  const int data_values = res.n_values;
  for (const auto& s : res.slots) res.n_values += s.ridge;
  if (res.slots.empty() || res.n_values <= static_cast<int>(res.slots.size()))
    throw std::invalid_argument("too few measurements to fit the predictor's constants");

  // Levenberg-Marquardt over a subset of the slots (the others stay where they are).
  const auto minimize = [&](std::size_t first, std::size_t last, bool with_power) {
    Residuals stage = res;
    stage.slots.assign(res.slots.begin() + static_cast<std::ptrdiff_t>(first),
                       res.slots.begin() + static_cast<std::ptrdiff_t>(last));
    stage.n_values = data_values;
    if (!with_power)
      for (double& w : stage.power_weight) stage.n_values -= w > 0.0, w = 0.0;
    for (const auto& s : stage.slots) stage.n_values += s.ridge;
    Eigen::VectorXd theta(static_cast<Eigen::Index>(stage.slots.size()));
    for (std::size_t i = 0; i < stage.slots.size(); ++i)
      theta(static_cast<Eigen::Index>(i)) = inverse(stage.slots[i].transform, *stage.slots[i].target);
    Eigen::NumericalDiff<Residuals> diff(stage);
    // Restarts from the last optimum get LM past the early stops the knees cause.
    for (int pass = 0; pass < 2; ++pass) {
      Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Residuals>> lm(diff);
      lm.parameters.maxfev = options.max_evaluations;
      lm.minimize(theta);
    }
    stage.apply(theta);
  };
  // Staged: the time constants first (power barely moves time), then the power constants on those times,
  // then everything together from there. A joint fit from the defaults alone can settle where one
  // workload class's saturation collapses onto the floor and per-GPU factors absorb the difference.
  if (n_time_slots < res.slots.size()) {
    minimize(0, n_time_slots, false);
    minimize(n_time_slots, res.slots.size(), true);
  }
  minimize(0, res.slots.size(), true);
  // A power class without runs in the data takes the median of the fitted classes' saturations, as a
  // family the fit has not seen takes the median family factor (family_factor).
  std::map<std::string, double> fitted_saturation;
  for (std::size_t c = 0; c < kPowerClasses; ++c)
    if (class_power[c]) fitted_saturation[to_string(static_cast<PowerClass>(c))] = p.saturation[c];
  for (std::size_t c = 0; c < kPowerClasses; ++c)
    if (!class_power[c] && !fitted_saturation.empty())
      p.saturation[c] = family_factor(fitted_saturation, to_string(static_cast<PowerClass>(c)));

  work.band.seen_gpus.clear();
  for (const auto& [g, n] : time_rows) work.band.seen_gpus.insert(g), (void)n;
  for (const auto& [g, n] : power_rows) work.band.seen_gpus.insert(g), (void)n;
  return work;
}

std::vector<LeftOutPrediction> leave_one_gpu_out(const std::vector<PreparedRow>& rows,
                                                 const FitOptions& options) {
  std::set<std::string> gpus;
  for (const auto& r : rows) gpus.insert(r.gpu.id);
  std::vector<LeftOutPrediction> out;
  for (const auto& g : gpus) {
    std::vector<PreparedRow> train;
    for (const auto& r : rows)
      if (r.gpu.id != g) train.push_back(r);
    if (train.empty()) continue;
    if (options.progress)
      options.progress(fmt::format("fitting without {} ({} rows)", g, rows.size() - train.size()));
    PredictorFit fit = fit_predictor(train, options);
    for (const auto& r : rows)
      if (r.gpu.id == g) out.push_back({&r, predict_row(r, fit)});
  }
  return out;
}

namespace {

/// A residual score and the weight it carries in the conformal quantile.
struct Score {
  double value = 0.0;
  double weight = 1.0;
};
using Scores = std::map<std::string, std::vector<Score>>;

/// Weighted split-conformal quantile (Tibshirani et al. 2019, "Conformal prediction under covariate
/// shift"): the smallest score whose cumulative weight reaches level x (total weight + the test point's
/// weight, placed at infinity); the largest score when none does. With unit weights this is the
/// ceil((n + 1) level)-th smallest score of split conformal.
double conformal_quantile(std::vector<Score> scores, double level, double test_weight) {
  if (scores.empty()) return 0.0;
  std::sort(scores.begin(), scores.end(), [](const Score& a, const Score& b) { return a.value < b.value; });
  double total = test_weight;
  for (const auto& x : scores) total += x.weight;
  const double need = level * total;
  double cumulative = 0.0;
  for (const auto& x : scores) {
    cumulative += x.weight;
    // A relative tolerance: weights of 1 / n summed over n rows are 1 only to rounding.
    if (cumulative >= need * (1.0 - 1e-12)) return x.value;
  }
  return scores.back().value;
}

}  // namespace

double conformal_quantile(const std::vector<double>& scores, double level) {
  std::vector<Score> unit;
  unit.reserve(scores.size());
  for (const double v : scores) unit.push_back({v, 1.0});
  return conformal_quantile(std::move(unit), level, 1.0);
}

double shrinkage_weight(const std::vector<std::pair<double, double>>& pairs) {
  double xy = 0.0, xx = 0.0;
  for (const auto& [x, y] : pairs) {
    xy += x * y;
    xx += x * x;
  }
  return xx > 0.0 ? std::clamp(xy / xx, 0.0, 1.0) : 0.0;
}

namespace {

/// Left-out residuals count each GPU once (its rows share a weight of 1): the band is for a GPU not yet
/// seen, and rows of one GPU are not exchangeable with another's. In-sample residuals count per row.
void add_scores(const std::vector<LeftOutPrediction>& preds, bool seen, Scores& time, Scores& power) {
  std::map<std::pair<std::string, std::string>, int> time_rows, power_rows;  // (group, GPU) -> rows
  const auto group_of = [&](const LeftOutPrediction& p) { return band_group(seen, p.prediction.band_class); };
  for (const auto& p : preds) {
    const Measurement& m = *p.row->row;
    if (m.time_s() > 0.0) ++time_rows[{group_of(p), p.row->gpu.id}];
    if (m.avg_power_W > 0.0) ++power_rows[{group_of(p), p.row->gpu.id}];
  }
  for (const auto& p : preds) {
    const Measurement& m = *p.row->row;
    const std::string group = group_of(p);
    const std::pair<std::string, std::string> key{group, p.row->gpu.id};
    if (m.time_s() > 0.0)
      time[group].push_back(
          {std::abs(std::log(m.time_s() / p.prediction.time_s(m))), seen ? 1.0 : 1.0 / time_rows[key]});
    if (m.avg_power_W > 0.0)
      power[group].push_back(
          {std::abs(std::log(m.avg_power_W / p.prediction.avg_power_W)), seen ? 1.0 : 1.0 / power_rows[key]});
  }
}

}  // namespace

BandTable calibrate_band(const std::vector<LeftOutPrediction>& left_out,
                         const std::vector<LeftOutPrediction>& in_sample, double level) {
  Scores time, power;
  add_scores(left_out, false, time, power);
  add_scores(in_sample, true, time, power);
  BandTable band;
  band.level = level;
  // The test point weighs what one of its group's units does: a GPU (1) unseen, a row (1) seen.
  for (const auto& [g, s] : time) band.time[g] = conformal_quantile(s, level, 1.0);
  for (const auto& [g, s] : power) band.power[g] = conformal_quantile(s, level, 1.0);
  return band;
}

FitReport fit_and_validate(const std::vector<PreparedRow>& rows, double level, const FitOptions& options) {
  FitReport report;
  report.fit = fit_predictor(rows, options);
  report.left_out = leave_one_gpu_out(rows, options);
  std::vector<LeftOutPrediction> in_sample;
  for (const auto& r : rows) in_sample.push_back({&r, predict_row(r, report.fit)});
  const std::set<std::string> seen = report.fit.band.seen_gpus;
  report.fit.band = calibrate_band(report.left_out, in_sample, level);
  report.fit.band.seen_gpus = seen;
  // Nested coverage: each GPU's band from the other GPUs' left-out residuals, as prediction_band() reads it
  // for a GPU it has not seen.
  std::set<std::string> gpus;
  for (const auto& p : report.left_out) gpus.insert(p.row->gpu.id);
  for (const auto& g : gpus) {
    std::vector<LeftOutPrediction> others;
    for (const auto& p : report.left_out)
      if (p.row->gpu.id != g) others.push_back(p);
    PredictorFit nested;
    nested.band = calibrate_band(others, {}, level);
    int nt = 0, it = 0, np = 0, ip = 0;
    for (auto& p : report.left_out) {
      if (p.row->gpu.id != g) continue;
      const Measurement& m = *p.row->row;
      const PredictionBand& b = p.prediction.band =
          prediction_band(nested, p.row->gpu, p.prediction.band_class, false);
      if (m.time_s() > 0.0) {
        const double t = p.prediction.time_s(m);
        ++nt, it += m.time_s() >= t * b.time_low && m.time_s() <= t * b.time_high;
      }
      if (m.avg_power_W > 0.0) {
        const double w = p.prediction.avg_power_W;
        ++np, ip += m.avg_power_W >= w * b.power_low && m.avg_power_W <= w * b.power_high;
      }
    }
    if (nt) report.time_coverage[g] = static_cast<double>(it) / nt;
    if (np) report.power_coverage[g] = static_cast<double>(ip) / np;
  }
  return report;
}

}  // namespace fleetwatt::models
