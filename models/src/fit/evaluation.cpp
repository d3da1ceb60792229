// Repeated-split evaluation, transfer tables, and their text and CSV layouts.
#include "fleetwatt/models/fit/evaluation.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>

#include "fleetwatt/models/fit/baselines.hpp"

namespace fleetwatt::models::fit {

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names{"sr", "ols", "ridge", "lasso", "gbt", "mlp"};
  return names;
}

const ModelScores& Evaluation::scores(const std::string& model) const {
  for (const auto& m : models)
    if (m.model == model) return m;
  throw std::out_of_range("no scores for model " + model);
}

SplitSizes split_sizes(Eigen::Index n) {
  Eigen::Index val = std::max<Eigen::Index>(1, static_cast<Eigen::Index>(std::llround(0.1 * double(n))));
  Eigen::Index test = val;
  Eigen::Index train = n - val - test;
  return {train, val, test};
}

double mse(const Eigen::VectorXd& pred, const Eigen::VectorXd& truth) {
  return (pred - truth).squaredNorm() / double(std::max<Eigen::Index>(1, truth.size()));
}

double mre_percent(const Eigen::VectorXd& pred, const Eigen::VectorXd& truth) {
  double sum = 0.0;
  int n = 0;
  for (Eigen::Index i = 0; i < truth.size(); ++i)
    if (truth(i) != 0.0) {
      sum += std::abs(pred(i) - truth(i)) / std::abs(truth(i));
      ++n;
    }
  return n ? 100.0 * sum / n : 0.0;
}

namespace {

std::unique_ptr<Regressor> make_baseline(const std::string& name, std::uint64_t seed) {
  if (name == "ols") return std::make_unique<OlsRegressor>();
  if (name == "ridge") return std::make_unique<PenalisedRegressor>(PenalisedRegressor::Kind::ridge, seed);
  if (name == "lasso") return std::make_unique<PenalisedRegressor>(PenalisedRegressor::Kind::lasso, seed);
  if (name == "gbt") return std::make_unique<GbtRegressor>(seed);
  if (name == "mlp") return std::make_unique<MlpRegressor>(seed);
  throw std::invalid_argument("unknown model " + name);
}

void summarise(ModelScores& s) {
  auto stats = [](const std::vector<double>& v, double& mean, double& sd) {
    mean = 0;
    for (const double x : v) mean += x;
    mean /= double(std::max<std::size_t>(1, v.size()));
    double ss = 0;
    for (const double x : v) ss += (x - mean) * (x - mean);
    sd = v.size() > 1 ? std::sqrt(ss / double(v.size() - 1)) : 0.0;
  };
  stats(s.mse, s.mse_mean, s.mse_std);
  stats(s.mre, s.mre_mean, s.mre_std);
}

/// Predictions of one model fitted on (xt, yt) with (xv, yv) as validation, applied to xs.
Eigen::VectorXd fit_predict(const std::string& model, const Eigen::MatrixXd& xt, const Eigen::VectorXd& yt,
                            const Eigen::MatrixXd& xv, const Eigen::VectorXd& yv, const Eigen::MatrixXd& xs,
                            const GpConfig& gp, std::uint64_t seed, std::string* formula,
                            const std::vector<std::string>& names) {
  if (model == "sr") {
    GpConfig c = gp;
    c.seed = seed;
    const GpResult r = fit_symbolic(xt, yt, c, xv.rows() ? &xv : nullptr, yv.size() ? &yv : nullptr);
    if (formula) *formula = to_formula(r.program, names);
    return predict(r.program, xs);
  }
  auto m = make_baseline(model, seed);
  m->fit(xt, yt);
  return m->predict(xs);
}

}  // namespace

Evaluation evaluate_models(const Dataset& d, const EvaluationConfig& cfg) {
  Evaluation ev;
  ev.target = d.target;
  ev.features = d.features;
  const SplitSizes sz = split_sizes(d.rows());
  ev.n_train = sz.train;
  ev.n_validation = sz.validation;
  ev.n_test = sz.test;
  for (const auto& m : cfg.models) ev.models.push_back(ModelScores{m, {}, {}, 0, 0, 0, 0, {}});
  for (int r = 0; r < cfg.repeats; ++r) {
    const std::uint64_t split_seed = cfg.seed * 1000003ULL + static_cast<std::uint64_t>(r);
    const auto idx = shuffled_indices(d.rows(), split_seed);
    const std::vector<Eigen::Index> tr(idx.begin(), idx.begin() + sz.train);
    const std::vector<Eigen::Index> va(idx.begin() + sz.train, idx.begin() + sz.train + sz.validation);
    const std::vector<Eigen::Index> te(idx.begin() + sz.train + sz.validation, idx.end());
    const Eigen::MatrixXd xt_raw = take_rows(d.x, tr);
    const Scaler sc = Scaler::fit(xt_raw);
    const Eigen::MatrixXd xt = sc.transform(xt_raw), xv = sc.transform(take_rows(d.x, va)),
                          xs = sc.transform(take_rows(d.x, te));
    const Eigen::VectorXd yt = take_rows(d.y, tr), yv = take_rows(d.y, va), ys = take_rows(d.y, te);
    for (auto& m : ev.models) {
      std::string formula;
      const Eigen::VectorXd p =
          fit_predict(m.model, xt, yt, xv, yv, xs, cfg.gp, split_seed, &formula, d.features);
      m.mse.push_back(mse(p, ys));
      m.mre.push_back(mre_percent(p, ys));
      if (r == 0) m.example_formula = formula;
    }
  }
  for (auto& m : ev.models) summarise(m);
  return ev;
}

std::vector<TransferCell> transfer_table(const Dataset& d, const EvaluationConfig& cfg,
                                         Eigen::Index min_rows) {
  std::map<std::string, std::vector<Eigen::Index>> rows;
  for (std::size_t i = 0; i < d.groups.size(); ++i) rows[d.groups[i]].push_back(static_cast<Eigen::Index>(i));
  std::vector<TransferCell> cells;
  for (const auto& [ga, ra] : rows) {
    if (static_cast<Eigen::Index>(ra.size()) < min_rows) continue;
    // A tenth of the training group (at least one row) is SR's validation.
    std::vector<Eigen::Index> shuffled = ra;
    const auto order = shuffled_indices(static_cast<Eigen::Index>(ra.size()), cfg.seed);
    for (std::size_t i = 0; i < order.size(); ++i) shuffled[i] = ra[static_cast<std::size_t>(order[i])];
    const auto nv = std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(0.1 * double(ra.size()))));
    const std::vector<Eigen::Index> va(shuffled.begin(), shuffled.begin() + static_cast<std::ptrdiff_t>(nv));
    const std::vector<Eigen::Index> tr(shuffled.begin() + static_cast<std::ptrdiff_t>(nv), shuffled.end());
    const Scaler sc = Scaler::fit(take_rows(d.x, tr));
    const Eigen::MatrixXd xt = sc.transform(take_rows(d.x, tr)), xv = sc.transform(take_rows(d.x, va));
    const Eigen::VectorXd yt = take_rows(d.y, tr), yv = take_rows(d.y, va);
    for (const auto& [gb, rb] : rows) {
      if (gb == ga || static_cast<Eigen::Index>(rb.size()) < min_rows) continue;
      const Eigen::MatrixXd xs = sc.transform(take_rows(d.x, rb));
      const Eigen::VectorXd ys = take_rows(d.y, rb);
      for (const auto& m : cfg.models) {
        // Baselines see training and validation rows together: they cross-validate internally.
        Eigen::VectorXd p;
        if (m == "sr") {
          p = fit_predict(m, xt, yt, xv, yv, xs, cfg.gp, cfg.seed, nullptr, d.features);
        } else {
          std::vector<Eigen::Index> all = tr;
          all.insert(all.end(), va.begin(), va.end());
          p = fit_predict(m, sc.transform(take_rows(d.x, all)), take_rows(d.y, all), {}, {}, xs, cfg.gp,
                          cfg.seed, nullptr, d.features);
        }
        cells.push_back(TransferCell{ga, gb, m, mse(p, ys), mre_percent(p, ys),
                                     static_cast<Eigen::Index>(ra.size()),
                                     static_cast<Eigen::Index>(rb.size())});
      }
    }
  }
  return cells;
}

std::string format_table3(const std::vector<Evaluation>& evs) {
  if (evs.empty()) return {};
  std::string out = fmt::format("{:<7}", "model");
  for (const auto& e : evs) out += fmt::format(" | {:^45}", e.target);
  out += fmt::format("\n{:<7}", "");
  for (std::size_t i = 0; i < evs.size(); ++i) out += fmt::format(" | {:>22} {:>22}", "MSE", "MRE %");
  out += "\n";
  for (std::size_t m = 0; m < evs.front().models.size(); ++m) {
    out += fmt::format("{:<7}", evs.front().models[m].model);
    for (const auto& e : evs) {
      const auto& s = e.models[m];
      out += fmt::format(" | {:>22} {:>22}", fmt::format("{:.4g} ± {:.3g}", s.mse_mean, s.mse_std),
                         fmt::format("{:.2f} ± {:.2f}", s.mre_mean, s.mre_std));
    }
    out += "\n";
  }
  return out;
}

std::string table3_csv(const std::vector<Evaluation>& evs) {
  std::string out =
      "target,model,mse_mean,mse_std,mre_mean_percent,mre_std_percent,repeats,n_train,n_validation,n_test\n";
  for (const auto& e : evs)
    for (const auto& s : e.models)
      out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", e.target, s.model, s.mse_mean, s.mse_std,
                         s.mre_mean, s.mre_std, s.mse.size(), e.n_train, e.n_validation, e.n_test);
  return out;
}

std::string format_table4(const std::string& target, const std::vector<TransferCell>& cells) {
  std::vector<std::string> models;
  for (const auto& c : cells)
    if (std::find(models.begin(), models.end(), c.model) == models.end()) models.push_back(c.model);
  std::string out = fmt::format(
      "transfer, target {}: MRE % (MSE) when fitting on one group and predicting another\n", target);
  out += fmt::format("{:<36}", "train -> test");
  for (const auto& m : models) out += fmt::format(" {:>22}", m);
  out += "\n";
  for (std::size_t i = 0; i < cells.size(); i += models.size()) {
    out += fmt::format("{:<36}", fmt::format("{} -> {}", cells[i].train_group, cells[i].test_group));
    for (std::size_t k = 0; k < models.size() && i + k < cells.size(); ++k)
      out += fmt::format(" {:>22}", fmt::format("{:.2f} ({:.3g})", cells[i + k].mre, cells[i + k].mse));
    out += "\n";
  }
  return out;
}

std::string table4_csv(const std::string& target, const std::vector<TransferCell>& cells) {
  std::string out = "target,train_group,test_group,model,mse,mre_percent,n_train,n_test\n";
  for (const auto& c : cells)
    out += fmt::format("{},{},{},{},{},{},{},{}\n", target, c.train_group, c.test_group, c.model, c.mse,
                       c.mre, c.n_train, c.n_test);
  return out;
}

std::string format_table2(const std::string& target, const std::vector<FeatureScore>& scores,
                          double threshold) {
  std::string out =
      fmt::format("feature selection for {} (kept: |Pearson| or MI >= {:g})\n", target, threshold);
  out += fmt::format("{:<28} {:>9} {:>9} {:>5}\n", "feature", "Pearson", "MI (kNN)", "kept");
  for (const auto& s : scores)
    out += fmt::format("{:<28} {:>9.3f} {:>9.3f} {:>5}\n", s.feature, s.pearson, s.mutual_info,
                       s.selected ? "yes" : "no");
  return out;
}

}  // namespace fleetwatt::models::fit
