// Data sets for fitting: building them from records, the z-score scaler, Pearson correlation and the
// KSG k-nearest-neighbour mutual-information estimator used for feature selection.
#include "fleetwatt/models/fit/dataset.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/jobs/random.hpp"

namespace fleetwatt::models::fit {

using core::ConfigError;
using core::SourceLocation;

Scaler Scaler::fit(const Eigen::MatrixXd& x) {
  Scaler s;
  s.mean = x.colwise().mean().transpose();
  s.std = Eigen::VectorXd::Ones(x.cols());
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    const double var = (x.col(j).array() - s.mean(j)).square().mean();
    if (var > 1e-24 * std::max(1.0, s.mean(j) * s.mean(j))) s.std(j) = std::sqrt(var);
  }
  return s;
}

Eigen::MatrixXd Scaler::transform(const Eigen::MatrixXd& x) const {
  return (x.rowwise() - mean.transpose()).array().rowwise() / std.transpose().array();
}

const std::vector<std::string>& default_feature_columns() {
  static const std::vector<std::string> cols{"input_size", "data_size", "params", "flops",
                                             "batch_size", "workers",   "epochs", "gpus"};
  return cols;
}

const std::vector<std::string>& measured_columns() {
  static const std::vector<std::string> cols{"valley_W",        "valley_s",  "peak_W",
                                             "peak_s",          "n_valleys", "energy_measured_J",
                                             "energy_phases_J", "epoch_s",   "epoch_W"};
  return cols;
}

namespace {
bool is_constant(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
}
}  // namespace

Dataset make_dataset(const RecordTable& table, const std::string& target,
                     const std::vector<std::string>& features, const std::string& group_column,
                     Eigen::Index min_rows) {
  Dataset d;
  d.source = table.source();
  d.target = target;
  const auto y = table.numeric(target);
  if (static_cast<Eigen::Index>(table.rows()) < min_rows)
    throw ConfigError(SourceLocation{table.source(), 0, 0}, "records",
                      "has " + std::to_string(table.rows()) + " rows; at least " + std::to_string(min_rows) +
                          " are needed for 8:1:1 train/validation/test splits");
  std::vector<std::vector<double>> cols;
  if (!features.empty()) {
    for (const auto& f : features) {
      if (f == target)
        throw ConfigError(SourceLocation{table.source(), 1, 0}, f, "the target cannot also be a feature");
      auto v = table.numeric(f);
      if (is_constant(v))
        throw ConfigError(SourceLocation{table.source(), 1, static_cast<std::uint32_t>(table.column(f) + 1)},
                          f,
                          "is constant (" + table.cell(0, table.column(f)) +
                              " in every row) and cannot inform a fit; leave it out of --features");
      d.features.push_back(f);
      cols.push_back(std::move(v));
    }
  } else {
    std::vector<std::string> candidates;
    for (const auto& c : default_feature_columns())
      if (table.has_column(c)) candidates.push_back(c);
    const bool from_defaults = !candidates.empty();
    if (!from_defaults)
      for (const auto& c : table.columns())
        if (c != target &&
            std::find(measured_columns().begin(), measured_columns().end(), c) == measured_columns().end())
          candidates.push_back(c);
    for (const auto& c : candidates) {
      if (c == target || c == group_column) continue;
      bool all_empty = true;
      const std::size_t ci = table.column(c);
      for (std::size_t r = 0; r < table.rows() && all_empty; ++r)
        all_empty = table.cell(r, ci).find_first_not_of(" \r") == std::string::npos;
      if (all_empty) {
        d.skipped.push_back(c + " (not given)");
        continue;
      }
      if (!table.is_numeric(c)) {
        if (from_defaults) (void)table.numeric(c);  // a metadata column must be numeric: name the bad cell
        d.skipped.push_back(c + " (not numeric)");
        continue;
      }
      auto v = table.numeric(c);
      if (is_constant(v)) {
        d.skipped.push_back(c + " (constant)");
        continue;
      }
      d.features.push_back(c);
      cols.push_back(std::move(v));
    }
    if (d.features.empty())
      throw ConfigError(SourceLocation{table.source(), 1, 0}, "features",
                        "no usable numeric, non-constant feature column; name them with --features");
  }
  const auto n = static_cast<Eigen::Index>(table.rows());
  d.x.resize(n, static_cast<Eigen::Index>(cols.size()));
  d.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    d.y(i) = y[static_cast<std::size_t>(i)];
    for (std::size_t j = 0; j < cols.size(); ++j)
      d.x(i, static_cast<Eigen::Index>(j)) = cols[j][static_cast<std::size_t>(i)];
  }
  if (!group_column.empty()) {
    const std::size_t g = table.column(group_column);
    for (std::size_t r = 0; r < table.rows(); ++r) d.groups.push_back(table.cell(r, g));
  }
  return d;
}

double pearson(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  const Eigen::ArrayXd da = a.array() - a.mean(), db = b.array() - b.mean();
  const double den = std::sqrt(da.square().sum() * db.square().sum());
  return den > 0 ? (da * db).sum() / den : 0.0;
}

namespace {
/// Digamma by recurrence to x >= 6 and the asymptotic series.
double digamma(double x) {
  double r = 0.0;
  while (x < 6.0) {
    r -= 1.0 / x;
    x += 1.0;
  }
  const double f = 1.0 / (x * x);
  return r + std::log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double gauss(jobs::Random& rng) {
  const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}
}  // namespace

double mutual_information_knn(const Eigen::VectorXd& a, const Eigen::VectorXd& b, int k, std::uint64_t seed) {
  const Eigen::Index n = a.size();
  if (n <= k) return 0.0;
  jobs::Random rng(seed);
  auto prepare = [&](const Eigen::VectorXd& v) {
    Eigen::VectorXd s = v;
    const double sd = std::sqrt((v.array() - v.mean()).square().mean());
    if (sd > 0) s /= sd;
    const double scale = 1e-10 * std::max(1.0, s.array().abs().mean());
    for (Eigen::Index i = 0; i < n; ++i) s(i) += scale * gauss(rng);
    return s;
  };
  const Eigen::VectorXd x = prepare(a), y = prepare(b);
  std::vector<double> dist(static_cast<std::size_t>(n));
  double sum = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j)
      dist[static_cast<std::size_t>(j)] =
          j == i ? INFINITY : std::max(std::abs(x(i) - x(j)), std::abs(y(i) - y(j)));
    std::nth_element(dist.begin(), dist.begin() + (k - 1), dist.end());
    // Neighbours strictly closer than the k-th in each marginal (the radius just below eps, as sklearn).
    const double eps = std::nextafter(dist[static_cast<std::size_t>(k - 1)], 0.0);
    Eigen::Index nx = 0, ny = 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (j == i) continue;
      if (std::abs(x(i) - x(j)) <= eps) ++nx;
      if (std::abs(y(i) - y(j)) <= eps) ++ny;
    }
    sum += digamma(double(nx) + 1.0) + digamma(double(ny) + 1.0);
  }
  const double mi = digamma(double(n)) + digamma(double(k)) - sum / double(n);
  return std::max(0.0, mi);
}

std::vector<FeatureScore> score_features(const Dataset& d, double threshold, int k, std::uint64_t seed) {
  std::vector<FeatureScore> out;
  for (Eigen::Index j = 0; j < d.x.cols(); ++j) {
    FeatureScore s;
    s.feature = d.features[static_cast<std::size_t>(j)];
    s.pearson = pearson(d.x.col(j), d.y);
    s.mutual_info = mutual_information_knn(d.x.col(j), d.y, k, seed);
    s.selected = std::abs(s.pearson) >= threshold || s.mutual_info >= threshold;
    out.push_back(s);
  }
  if (!out.empty() && std::none_of(out.begin(), out.end(), [](const auto& s) { return s.selected; }))
    std::max_element(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return a.mutual_info < b.mutual_info;
    })->selected = true;
  return out;
}

Dataset select_features(const Dataset& d, const std::vector<FeatureScore>& scores) {
  Dataset s = d;
  s.features.clear();
  std::vector<Eigen::Index> keep;
  for (std::size_t j = 0; j < scores.size(); ++j)
    if (scores[j].selected) {
      keep.push_back(static_cast<Eigen::Index>(j));
      s.features.push_back(d.features[j]);
    }
  s.x.resize(d.x.rows(), static_cast<Eigen::Index>(keep.size()));
  for (std::size_t j = 0; j < keep.size(); ++j) s.x.col(static_cast<Eigen::Index>(j)) = d.x.col(keep[j]);
  return s;
}

}  // namespace fleetwatt::models::fit
