// Few-shot calibration per (machine, workload) and its evaluation against the zero-shot predictions.
#include "fleetwatt/models/few_shot.hpp"

#include "fleetwatt/models/fit/predictor_fit.hpp"
#include "fleetwatt/models/site_correction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>

namespace fleetwatt::models {

namespace {

/// A row of the zero-shot comparison with its group.
struct Row {
  std::size_t compared = 0;  ///< index into zero.compared
  const Measurement* m = nullptr;
  double log_time = std::numeric_limits<double>::quiet_NaN();   ///< log(measured / predicted) time
  double log_power = std::numeric_limits<double>::quiet_NaN();  ///< power_log_ratio; NaN: not measured
  double idle_W = 0.0;                                          ///< the board's idle draw
  /// The prediction re-timed by its machine's GPU and host factors (the zero-shot one without a split).
  double base_s = 0.0;
};

/// A band's half-widths, |ln(measured / predicted)| at its level: for a row that repeats its calibration
/// run's batch and power limit, and for one that varies them.
struct BandHalfWidths {
  double time = 0.0, power = 0.0, time_varied = 0.0, power_varied = 0.0;
};

using GroupKey = std::pair<std::string, std::string>;  // (GPU, workload)

/// The row's power limit (its board's maximum where it states none); 0: unknown.
double power_limit(const Measurement& m) {
  return m.power_limit_W > 0.0 ? m.power_limit_W : m.tdp_W;
}

/// Whether a predicted power sits at the row's limit (the limit binds).
bool at_limit(double predicted_W, const Measurement& m) {
  return binds(predicted_W, power_limit(m));
}

}  // namespace

FewShotReport few_shot(const MeasurementSet& set, const ValidationReport& zero, std::size_t k, double level,
                       double machine_prior) {
  if (!(level > 0.0 && level < 1.0)) throw std::invalid_argument("few-shot band level must be in (0, 1)");
  FewShotReport out;
  out.k = k;
  out.level = level;
  out.machine_prior = machine_prior;

  // Groups, each ordered by the calibration rule: the default power limit first (the group's highest, a 0
  // limit being the default), then the batch nearest the middle one of those runs (a typical operating
  // point: the smallest batches are often host-bound, the largest memory-bound), then file order.
  std::map<GroupKey, std::vector<Row>> groups;
  for (std::size_t i = 0; i < zero.compared.size(); ++i) {
    const RowComparison& c = zero.compared[i];
    const Measurement& m = set.rows.at(c.row);
    const double idle_W = correction_idle_W(m.gpu);
    groups[{m.gpu, m.workload}].push_back({i, &m, log_ratio(c.measured_s, c.predicted_s),
                                           power_log_ratio(c.measured_W, c.predicted_W, idle_W), idle_W,
                                           c.predicted_s});
  }
  const auto limit = [](const Measurement& m) {
    return m.power_limit_W > 0.0 ? m.power_limit_W : std::numeric_limits<double>::infinity();
  };
  for (auto& [key, rows] : groups) {
    double top = 0.0;
    for (const Row& r : rows) top = std::max(top, limit(*r.m));
    // The middle batch of the runs at the default limit (the lower middle of an even count).
    std::vector<double> batches;
    for (const Row& r : rows)
      if (limit(*r.m) == top) batches.push_back(r.m->job.meta.batch_size);
    std::sort(batches.begin(), batches.end());
    const double middle = batches[(batches.size() - 1) / 2];
    const auto distance = [&](const Row& r) {
      return std::abs(std::log(std::max(1.0, double(r.m->job.meta.batch_size)) / std::max(1.0, middle)));
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
      const bool da = limit(*a.m) == top, db = limit(*b.m) == top;
      if (da != db) return da;
      if (distance(a) != distance(b)) return distance(a) < distance(b);
      if (a.m->job.meta.batch_size != b.m->job.meta.batch_size)
        return a.m->job.meta.batch_size < b.m->job.meta.batch_size;
      return zero.compared[a.compared].row < zero.compared[b.compared].row;
    });
  }

  // Each machine's GPU and host factors from its calibration runs, every workload's together (a machine: a
  // GPU of one data set), and every row's time re-timed by them: the group factors below correct what the
  // machine's factors leave.
  if (k && machine_prior < std::numeric_limits<double>::infinity()) {
    std::map<std::pair<std::string, std::string>, std::vector<SplitRun>> calibration;
    for (const auto& [key, rows] : groups) {
      if (rows.size() <= k) continue;
      for (std::size_t i = 0; i < k; ++i) {
        const RowComparison& c = zero.compared[rows[i].compared];
        calibration[{rows[i].m->source, key.first}].push_back({c.split, c.measured_s});
      }
    }
    for (const auto& [machine, runs] : calibration)
      out.machine_factors[machine] = fit_machine_factors(runs, machine_prior);
    for (auto& [key, rows] : groups)
      for (Row& r : rows) {
        const auto it = out.machine_factors.find({r.m->source, key.first});
        const RowComparison& c = zero.compared[r.compared];
        if (it == out.machine_factors.end() || !c.split.known()) continue;
        r.base_s = c.split.time_s(it->second.gpu, it->second.host);
        r.log_time = log_ratio(c.measured_s, r.base_s);
      }
  }

  // Each GPU's shrinkage weights from the other GPUs' groups, and its corrected predictions.
  /// The mean of the finite log ratios of a group's first k rows (NaN: none).
  const auto calibration_mean = [&](const std::vector<Row>& rows, bool power) {
    double sum = 0.0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < k && i < rows.size(); ++i) {
      const double x = power ? rows[i].log_power : rows[i].log_time;
      if (std::isnan(x)) continue;
      sum += x;
      ++n;
    }
    return n ? sum / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
  };
  // A run of the calibration runs' configuration (batch and power limit) repeats them; another one varies it.
  const auto repeats = [&](const std::vector<Row>& rows, std::size_t i) {
    for (std::size_t c = 0; c < k; ++c)
      if (rows[c].m->job.meta.batch_size == rows[i].m->job.meta.batch_size &&
          rows[c].m->power_limit_W == rows[i].m->power_limit_W)
        return true;
    return false;
  };
  const auto weights_without = [&](const std::string& gpu, bool power) {
    std::vector<std::pair<double, double>> repeat, varied;
    for (const auto& [key, rows] : groups) {
      if (key.first == gpu || rows.size() <= k) continue;
      const double x = calibration_mean(rows, power);
      if (std::isnan(x)) continue;
      for (std::size_t i = k; i < rows.size(); ++i) {
        const double y = power ? rows[i].log_power : rows[i].log_time;
        // A run whose prediction sits at its limit is not corrected, so it says nothing of the weight.
        const bool binds = power && at_limit(zero.compared[rows[i].compared].predicted_W, *rows[i].m);
        if (std::isnan(y) || binds) continue;
        (repeats(rows, i) ? repeat : varied).emplace_back(x, y);
      }
    }
    ShrinkageWeights w;
    w.varied = shrinkage_weight(varied);
    // Without repeated runs elsewhere, a repeat is weighed as a varied run (the cautious choice).
    w.repeat = repeat.empty() ? w.varied : shrinkage_weight(repeat);
    w.repeat_pairs = repeat.size();
    w.varied_pairs = varied.size();
    return w;
  };
  struct Corrected {
    std::size_t compared;
    double time_s, power_W;
    double log_time_residual, log_power_residual;  ///< log(measured / corrected); NaN: not measured
    bool repeat;                                   ///< repeats a calibration run's batch and power limit
  };
  std::map<std::string, std::vector<Corrected>> corrected;
  std::set<std::string> gpus;
  for (const auto& [key, rows] : groups) gpus.insert(key.first);
  for (const std::string& gpu : gpus) {
    const ShrinkageWeights wt = k ? weights_without(gpu, false) : ShrinkageWeights{};
    const ShrinkageWeights wp = k ? weights_without(gpu, true) : ShrinkageWeights{};
    out.time_weights[gpu] = wt;
    out.power_weights[gpu] = wp;
    for (const auto& [key, rows] : groups) {
      if (key.first != gpu) continue;
      if (rows.size() <= k) {
        out.uncalibrated_rows += rows.size();
        continue;
      }
      out.calibration_rows += k;
      const double xt = calibration_mean(rows, false), xp = calibration_mean(rows, true);
      for (std::size_t i = k; i < rows.size(); ++i) {
        const bool repeat = repeats(rows, i);
        const double ft = std::isnan(xt) ? 1.0 : std::exp((repeat ? wt.repeat : wt.varied) * xt);
        const double fp = std::isnan(xp) ? 1.0 : std::exp((repeat ? wp.repeat : wp.varied) * xp);
        const RowComparison& c = zero.compared[rows[i].compared];
        const double power_W = corrected_power(c.predicted_W, fp, power_limit(*rows[i].m), rows[i].idle_W);
        corrected[gpu].push_back({rows[i].compared, rows[i].base_s * ft, power_W,
                                  rows[i].log_time - std::log(ft), log_ratio(c.measured_W, power_W), repeat});
      }
    }
  }

  // The band half-widths at `level` of the corrected rows of every GPU but `skip` ("": every GPU): over
  // all of them, and for a row that varies its calibration run's batch or power limit the wider of that
  // and the quantile of such rows alone. Varied rows stray further than repeated ones, and a band pooled
  // over both is too narrow for them (Mondrian conformal prediction by the category the weights use; the
  // pooled band stays the floor where that category's rows are few or tight).
  const auto band_without = [&](const std::string& skip) {
    std::vector<double> rt, rp, vt, vp;
    for (const auto& [gpu, rows] : corrected) {
      if (gpu == skip) continue;
      for (const Corrected& c : rows) {
        if (!std::isnan(c.log_time_residual)) {
          rt.push_back(std::abs(c.log_time_residual));
          if (!c.repeat) vt.push_back(rt.back());
        }
        if (!std::isnan(c.log_power_residual)) {
          rp.push_back(std::abs(c.log_power_residual));
          if (!c.repeat) vp.push_back(rp.back());
        }
      }
    }
    BandHalfWidths b;
    b.time = conformal_quantile(rt, level), b.power = conformal_quantile(rp, level);
    b.time_varied = vt.empty() ? b.time : std::max(b.time, conformal_quantile(vt, level));
    b.power_varied = vp.empty() ? b.power : std::max(b.power, conformal_quantile(vp, level));
    return b;
  };

  // What a site's runs are corrected by (PredictorFit::site): the weights fitted on every GPU's groups, and
  // the band of every GPU's corrected rows (each corrected with weights fitted without its GPU).
  if (k) {
    const ShrinkageWeights wt = weights_without("", false), wp = weights_without("", true);
    const BandHalfWidths b = band_without("");
    out.site = {wt.repeat, wt.varied, wp.repeat, wp.varied, b.time, b.power, b.time_varied, b.power_varied};
  }

  // Each GPU's band: the level quantile of the other GPUs' corrected residuals.
  std::map<std::size_t, Prediction> predicted;  // by index into zero.compared
  for (const auto& [gpu, rows] : corrected) {
    const BandHalfWidths b = band_without(gpu);
    for (const Corrected& c : rows) {
      const double ht = c.repeat ? b.time : b.time_varied, hp = c.repeat ? b.power : b.power_varied;
      Prediction p;
      p.epoch_s = p.step_s = c.time_s;
      p.avg_power_W = c.power_W;
      p.band = {level, std::exp(-ht), std::exp(ht), std::exp(-hp), std::exp(hp)};
      predicted[c.compared] = p;
    }
  }

  // The report over the predicted rows, its row indices mapped back to the set's.
  MeasurementSet kept = set;
  kept.rows.clear();
  std::vector<std::size_t> original;
  std::vector<Prediction> predictions;
  for (const auto& [compared, p] : predicted) {
    original.push_back(zero.compared[compared].row);
    kept.rows.push_back(set.rows[original.back()]);
    predictions.push_back(p);
  }
  out.report = validate_measurements(kept, [&](const Measurement& m) {
    return predictions.at(static_cast<std::size_t>(&m - kept.rows.data()));
  });
  for (RowComparison& c : out.report.compared) c.row = original.at(c.row);
  return out;
}

}  // namespace fleetwatt::models
