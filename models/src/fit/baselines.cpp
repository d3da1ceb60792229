// Baseline regressors: OLS, ridge, lasso (coordinate descent), gradient-boosted trees (level-wise exact
// splits over presorted features), and a one-hidden-layer MLP trained by Adam. All deterministic.
#include "fleetwatt/models/fit/baselines.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "fleetwatt/jobs/random.hpp"

namespace fleetwatt::models::fit {

using jobs::Random;

Eigen::MatrixXd take_rows(const Eigen::MatrixXd& x, const std::vector<Eigen::Index>& rows) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), x.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = x.row(rows[i]);
  return out;
}

Eigen::VectorXd take_rows(const Eigen::VectorXd& y, const std::vector<Eigen::Index>& rows) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) out(static_cast<Eigen::Index>(i)) = y(rows[i]);
  return out;
}

std::vector<Eigen::Index> shuffled_indices(Eigen::Index n, std::uint64_t seed) {
  std::vector<Eigen::Index> idx(static_cast<std::size_t>(n));
  std::iota(idx.begin(), idx.end(), Eigen::Index{0});
  Random rng(seed);
  for (std::size_t i = idx.size(); i > 1; --i) std::swap(idx[i - 1], idx[rng.integer(0, i - 1)]);
  return idx;
}

double cross_validated_mse(const std::function<std::unique_ptr<Regressor>()>& make, const Eigen::MatrixXd& x,
                           const Eigen::VectorXd& y, int folds, std::uint64_t seed) {
  const auto idx = shuffled_indices(x.rows(), seed);
  double sse = 0.0;
  for (int k = 0; k < folds; ++k) {
    std::vector<Eigen::Index> tr, te;
    for (std::size_t i = 0; i < idx.size(); ++i)
      (static_cast<int>(i % static_cast<std::size_t>(folds)) == k ? te : tr).push_back(idx[i]);
    if (te.empty() || tr.empty()) continue;
    auto m = make();
    m->fit(take_rows(x, tr), take_rows(y, tr));
    sse += (m->predict(take_rows(x, te)) - take_rows(y, te)).squaredNorm();
  }
  const double mse = sse / double(x.rows());
  return std::isfinite(mse) ? mse : std::numeric_limits<double>::infinity();
}

void OlsRegressor::fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  Eigen::MatrixXd a(x.rows(), x.cols() + 1);
  a << x, Eigen::VectorXd::Ones(x.rows());
  const Eigen::VectorXd sol = a.colPivHouseholderQr().solve(y);
  w_ = sol.head(x.cols());
  b_ = sol(x.cols());
}

Eigen::VectorXd OlsRegressor::predict(const Eigen::MatrixXd& x) const {
  return (x * w_).array() + b_;
}

std::vector<double> penalty_grid() {
  std::vector<double> g;
  for (int i = 0; i <= 10; ++i) g.push_back(std::pow(10.0, -4.0 + 0.5 * i));
  return g;
}

void PenalisedRegressor::fit_alpha(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, double alpha) {
  alpha_ = alpha;
  const Eigen::RowVectorXd xm = x.colwise().mean();
  const double ym = y.mean();
  const Eigen::MatrixXd xc = x.rowwise() - xm;
  const Eigen::VectorXd yc = y.array() - ym;
  const Eigen::Index p = x.cols();
  if (kind_ == Kind::ridge) {
    Eigen::MatrixXd a = xc.transpose() * xc;
    a.diagonal().array() += alpha;
    w_ = a.ldlt().solve(xc.transpose() * yc);
  } else {
    const double n = double(x.rows());
    w_ = Eigen::VectorXd::Zero(p);
    Eigen::VectorXd r = yc;
    const Eigen::VectorXd norms = xc.colwise().squaredNorm().transpose() / n;
    for (int iter = 0; iter < 10000; ++iter) {
      double max_step = 0.0, max_w = 0.0;
      for (Eigen::Index j = 0; j < p; ++j) {
        if (norms(j) <= 0) continue;
        const double old = w_(j);
        const double rho = xc.col(j).dot(r) / n + norms(j) * old;
        const double w = std::copysign(std::max(std::abs(rho) - alpha, 0.0), rho) / norms(j);
        if (w != old) r -= (w - old) * xc.col(j);
        w_(j) = w;
        max_step = std::max(max_step, std::abs(w - old));
        max_w = std::max(max_w, std::abs(w));
      }
      if (max_step <= 1e-10 * std::max(1.0, max_w)) break;
    }
  }
  b_ = ym - xm.dot(w_);
}

void PenalisedRegressor::fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  double best = std::numeric_limits<double>::infinity(), best_alpha = penalty_grid().front();
  for (const double a : penalty_grid()) {
    const double mse = cross_validated_mse(
        [&] {
          auto m = std::make_unique<PenalisedRegressor>(kind_, seed_);
          struct Fixed final : Regressor {
            std::unique_ptr<PenalisedRegressor> m;
            double a;
            std::string name() const override { return m->name(); }
            void fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) override { m->fit_alpha(x, y, a); }
            Eigen::VectorXd predict(const Eigen::MatrixXd& x) const override { return m->predict(x); }
          };
          auto f = std::make_unique<Fixed>();
          f->m = std::move(m);
          f->a = a;
          return std::unique_ptr<Regressor>(std::move(f));
        },
        x, y, 5, seed_);
    if (mse < best) {
      best = mse;
      best_alpha = a;
    }
  }
  fit_alpha(x, y, best_alpha);
}

Eigen::VectorXd PenalisedRegressor::predict(const Eigen::MatrixXd& x) const {
  return (x * w_).array() + b_;
}

std::string PenalisedRegressor::chosen() const {
  return fmt::format("alpha={:g}", alpha_);
}

namespace {

using TreeNode = GbtRegressor::TreeNode;

/// One least-squares tree on the residuals of the sampled rows, grown level by level; every level scans
/// each feature's presorted rows once, keeping running sums per node.
std::vector<TreeNode> grow_tree(const Eigen::MatrixXd& x, const Eigen::VectorXd& resid,
                                const std::vector<std::vector<Eigen::Index>>& sorted,
                                const std::vector<char>& in_sample, const GbtParams& p) {
  const Eigen::Index n = x.rows();
  std::vector<TreeNode> tree(1);
  std::vector<int> node_of(static_cast<std::size_t>(n), -1);
  for (Eigen::Index i = 0; i < n; ++i)
    if (in_sample[static_cast<std::size_t>(i)]) node_of[static_cast<std::size_t>(i)] = 0;
  std::vector<int> level{0};
  for (int d = 0; d <= p.depth && !level.empty(); ++d) {
    const std::size_t m = level.size();
    std::vector<int> slot(tree.size(), -1);
    for (std::size_t k = 0; k < m; ++k) slot[static_cast<std::size_t>(level[k])] = static_cast<int>(k);
    std::vector<double> sum(m, 0.0);
    std::vector<int> cnt(m, 0);
    for (Eigen::Index i = 0; i < n; ++i) {
      const int nd = node_of[static_cast<std::size_t>(i)];
      if (nd < 0 || slot[static_cast<std::size_t>(nd)] < 0) continue;
      sum[static_cast<std::size_t>(slot[static_cast<std::size_t>(nd)])] += resid(i);
      ++cnt[static_cast<std::size_t>(slot[static_cast<std::size_t>(nd)])];
    }
    for (std::size_t k = 0; k < m; ++k)
      tree[static_cast<std::size_t>(level[k])].value = cnt[k] ? sum[k] / cnt[k] : 0.0;
    if (d == p.depth) break;
    std::vector<double> best_gain(m, 1e-12), best_split(m, 0.0);
    std::vector<int> best_feat(m, -1);
    for (Eigen::Index f = 0; f < x.cols(); ++f) {
      std::vector<double> ls(m, 0.0), last(m, -std::numeric_limits<double>::infinity());
      std::vector<int> lc(m, 0);
      for (const Eigen::Index i : sorted[static_cast<std::size_t>(f)]) {
        const int nd = node_of[static_cast<std::size_t>(i)];
        if (nd < 0) continue;
        const int s = slot[static_cast<std::size_t>(nd)];
        if (s < 0) continue;
        const auto k = static_cast<std::size_t>(s);
        const double v = x(i, f);
        if (v > last[k] && lc[k] >= p.min_leaf && cnt[k] - lc[k] >= p.min_leaf) {
          const double rs = sum[k] - ls[k];
          const double gain = ls[k] * ls[k] / lc[k] + rs * rs / (cnt[k] - lc[k]) - sum[k] * sum[k] / cnt[k];
          if (gain > best_gain[k]) {
            best_gain[k] = gain;
            best_feat[k] = static_cast<int>(f);
            best_split[k] = 0.5 * (v + last[k]);
          }
        }
        ls[k] += resid(i);
        ++lc[k];
        last[k] = v;
      }
    }
    std::vector<int> next;
    for (std::size_t k = 0; k < m; ++k) {
      if (best_feat[k] < 0) continue;
      const auto id = static_cast<std::size_t>(level[k]);
      tree[id].feature = best_feat[k];
      tree[id].split = best_split[k];
      tree[id].left = static_cast<int>(tree.size());
      tree[id].right = static_cast<int>(tree.size() + 1);
      tree.emplace_back();
      tree.emplace_back();
      next.push_back(tree[id].left);
      next.push_back(tree[id].right);
    }
    for (Eigen::Index i = 0; i < n; ++i) {
      int& nd = node_of[static_cast<std::size_t>(i)];
      if (nd < 0) continue;
      const TreeNode& t = tree[static_cast<std::size_t>(nd)];
      if (t.feature >= 0 && slot.size() > static_cast<std::size_t>(nd) &&
          slot[static_cast<std::size_t>(nd)] >= 0)
        nd = x(i, t.feature) <= t.split ? t.left : t.right;
    }
    level = next;
  }
  return tree;
}

double tree_value(const std::vector<TreeNode>& tree, const Eigen::MatrixXd& x, Eigen::Index row) {
  int nd = 0;
  while (tree[static_cast<std::size_t>(nd)].feature >= 0) {
    const TreeNode& t = tree[static_cast<std::size_t>(nd)];
    nd = x(row, t.feature) <= t.split ? t.left : t.right;
  }
  return tree[static_cast<std::size_t>(nd)].value;
}

}  // namespace

void GbtRegressor::fit_fixed(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  const Eigen::Index n = x.rows();
  std::vector<std::vector<Eigen::Index>> sorted(static_cast<std::size_t>(x.cols()));
  for (Eigen::Index f = 0; f < x.cols(); ++f) {
    auto& s = sorted[static_cast<std::size_t>(f)];
    s.resize(static_cast<std::size_t>(n));
    std::iota(s.begin(), s.end(), Eigen::Index{0});
    std::stable_sort(s.begin(), s.end(), [&](Eigen::Index a, Eigen::Index b) { return x(a, f) < x(b, f); });
  }
  base_ = y.mean();
  Eigen::VectorXd pred = Eigen::VectorXd::Constant(n, base_);
  trees_.clear();
  Random rng(seed_);
  std::vector<char> in_sample(static_cast<std::size_t>(n), 1);
  for (int t = 0; t < params_.trees; ++t) {
    if (params_.subsample < 1.0)
      for (auto& s : in_sample) s = rng.uniform() < params_.subsample ? 1 : 0;
    const Eigen::VectorXd resid = y - pred;
    auto tree = grow_tree(x, resid, sorted, in_sample, params_);
    for (auto& node : tree) node.value *= params_.rate;
    for (Eigen::Index i = 0; i < n; ++i) pred(i) += tree_value(tree, x, i);
    trees_.push_back(std::move(tree));
  }
}

void GbtRegressor::fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  if (cv_) {
    double best = std::numeric_limits<double>::infinity();
    GbtParams chosen = params_;
    for (const int depth : {2, 3})
      for (const double rate : {0.05, 0.2})
        for (const int trees : {50, 150})
          for (const double sub : {0.7, 1.0}) {
            const GbtParams gp{depth, rate, trees, sub, params_.min_leaf};
            const double mse = cross_validated_mse(
                [&] {
                  auto m = std::make_unique<GbtRegressor>(seed_, false);
                  m->set_params(gp);
                  struct Fixed final : Regressor {
                    std::unique_ptr<GbtRegressor> m;
                    std::string name() const override { return "gbt"; }
                    void fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) override {
                      m->fit_fixed(x, y);
                    }
                    Eigen::VectorXd predict(const Eigen::MatrixXd& x) const override { return m->predict(x); }
                  };
                  auto f = std::make_unique<Fixed>();
                  f->m = std::move(m);
                  return std::unique_ptr<Regressor>(std::move(f));
                },
                x, y, 5, seed_);
            if (mse < best) {
              best = mse;
              chosen = gp;
            }
          }
    params_ = chosen;
  }
  fit_fixed(x, y);
}

Eigen::VectorXd GbtRegressor::predict(const Eigen::MatrixXd& x) const {
  Eigen::VectorXd out = Eigen::VectorXd::Constant(x.rows(), base_);
  for (const auto& t : trees_)
    for (Eigen::Index i = 0; i < x.rows(); ++i) out(i) += tree_value(t, x, i);
  return out;
}

std::string GbtRegressor::chosen() const {
  return fmt::format("depth={} rate={:g} trees={} subsample={:g}", params_.depth, params_.rate, params_.trees,
                     params_.subsample);
}

void MlpRegressor::fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  const Eigen::Index n = x.rows(), p = x.cols(), h = hidden_;
  y_mean_ = y.mean();
  y_std_ = std::sqrt((y.array() - y_mean_).square().mean());
  if (!(y_std_ > 0)) y_std_ = 1.0;
  const Eigen::VectorXd t = (y.array() - y_mean_) / y_std_;
  Random rng(seed_);
  const double lim1 = std::sqrt(6.0 / double(p + h)), lim2 = std::sqrt(6.0 / double(h + 1));
  w1_.resize(h, p);
  for (Eigen::Index i = 0; i < w1_.size(); ++i) w1_.data()[i] = rng.uniform(-lim1, lim1);
  b1_ = Eigen::VectorXd::Zero(h);
  w2_.resize(h);
  for (Eigen::Index i = 0; i < h; ++i) w2_(i) = rng.uniform(-lim2, lim2);
  b2_ = 0.0;
  // Adam state.
  Eigen::MatrixXd mw1 = Eigen::MatrixXd::Zero(h, p), vw1 = mw1;
  Eigen::VectorXd mb1 = Eigen::VectorXd::Zero(h), vb1 = mb1, mw2 = mb1, vw2 = mb1;
  double mb2 = 0, vb2 = 0;
  const double lr = 0.01, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, l2 = 1e-4;
  for (int e = 1; e <= epochs_; ++e) {
    const Eigen::MatrixXd z = (x * w1_.transpose()).rowwise() + b1_.transpose();  // n x h
    const Eigen::MatrixXd a = z.array().tanh();
    const Eigen::VectorXd out = (a * w2_).array() + b2_;
    const Eigen::VectorXd g_out = 2.0 * (out - t) / double(n);  // d MSE / d out
    const Eigen::VectorXd gw2 = a.transpose() * g_out + 2.0 * l2 * w2_;
    const double gb2 = g_out.sum();
    const Eigen::MatrixXd g_a = g_out * w2_.transpose();  // n x h
    const Eigen::MatrixXd g_z = g_a.array() * (1.0 - a.array().square());
    const Eigen::MatrixXd gw1 = g_z.transpose() * x + 2.0 * l2 * w1_;  // h x p
    const Eigen::VectorXd gb1 = g_z.colwise().sum().transpose();
    const double c1 = 1.0 - std::pow(beta1, e), c2 = 1.0 - std::pow(beta2, e);
    auto step = [&](auto& w, auto& m, auto& v, const auto& g) {
      m = beta1 * m + (1 - beta1) * g;
      v = beta2 * v + (1 - beta2) * g.cwiseProduct(g);
      w.array() -= lr * (m.array() / c1) / ((v.array() / c2).sqrt() + eps);
    };
    step(w1_, mw1, vw1, gw1);
    step(b1_, mb1, vb1, gb1);
    step(w2_, mw2, vw2, gw2);
    mb2 = beta1 * mb2 + (1 - beta1) * gb2;
    vb2 = beta2 * vb2 + (1 - beta2) * gb2 * gb2;
    b2_ -= lr * (mb2 / c1) / (std::sqrt(vb2 / c2) + eps);
  }
}

Eigen::VectorXd MlpRegressor::predict(const Eigen::MatrixXd& x) const {
  const Eigen::MatrixXd a = ((x * w1_.transpose()).rowwise() + b1_.transpose()).array().tanh();
  return ((a * w2_).array() + b2_) * y_std_ + y_mean_;
}

}  // namespace fleetwatt::models::fit
