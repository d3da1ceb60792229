// Baseline regressors compared with symbolic regression on the same features and splits:
// ordinary least squares, ridge and lasso with the penalty chosen by 5-fold cross-validation over
// 1e-4..10, gradient-boosted regression trees with depth, rate, tree count and subsample chosen by
// cross-validation, and a small multilayer perceptron. Inputs are standardised features.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fleetwatt::models::fit {

class Regressor {
 public:
  virtual ~Regressor() = default;
  /// Short name used in tables and JSON ("ols", "ridge", ...).
  [[nodiscard]] virtual std::string name() const = 0;
  virtual void fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) = 0;
  [[nodiscard]] virtual Eigen::VectorXd predict(const Eigen::MatrixXd& x) const = 0;
  /// The hyper-parameters chosen by the last fit, for reports ("alpha=0.01").
  [[nodiscard]] virtual std::string chosen() const { return {}; }
};

/// Least squares with an intercept (column-pivoting QR, so collinear features are handled).
class OlsRegressor final : public Regressor {
 public:
  [[nodiscard]] std::string name() const override { return "ols"; }
  void fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) override;
  [[nodiscard]] Eigen::VectorXd predict(const Eigen::MatrixXd& x) const override;

 private:
  Eigen::VectorXd w_;
  double b_ = 0.0;
};

/// The penalty grid: 11 values log-spaced over [1e-4, 10].
[[nodiscard]] std::vector<double> penalty_grid();

/// Ridge (||y - Xw - b||^2 + alpha ||w||^2) or lasso ((1/2n)||y - Xw - b||^2 + alpha ||w||_1, coordinate
/// descent), alpha by 5-fold cross-validated MSE over penalty_grid() (scikit-learn's objectives).
class PenalisedRegressor final : public Regressor {
 public:
  enum class Kind { ridge, lasso };
  explicit PenalisedRegressor(Kind kind, std::uint64_t seed = 0) : kind_(kind), seed_(seed) {}
  [[nodiscard]] std::string name() const override { return kind_ == Kind::ridge ? "ridge" : "lasso"; }
  void fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) override;
  [[nodiscard]] Eigen::VectorXd predict(const Eigen::MatrixXd& x) const override;
  [[nodiscard]] std::string chosen() const override;
  /// Fits with a fixed alpha (no cross-validation).
  void fit_alpha(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, double alpha);

 private:
  Kind kind_;
  std::uint64_t seed_;
  double alpha_ = 0.0;
  Eigen::VectorXd w_;
  double b_ = 0.0;
};

struct GbtParams {
  int depth = 3;
  double rate = 0.1;
  int trees = 100;
  double subsample = 1.0;
  int min_leaf = 2;
};

/// Gradient-boosted least-squares regression trees (Friedman), hyper-parameters by 5-fold CV over a
/// small grid (depth 2/3, rate 0.05/0.2, trees 50/150, subsample 0.7/1.0: 16 settings) unless fixed.
class GbtRegressor final : public Regressor {
 public:
  explicit GbtRegressor(std::uint64_t seed = 0, bool cross_validate = true)
      : seed_(seed), cv_(cross_validate) {}
  [[nodiscard]] std::string name() const override { return "gbt"; }
  void fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) override;
  [[nodiscard]] Eigen::VectorXd predict(const Eigen::MatrixXd& x) const override;
  [[nodiscard]] std::string chosen() const override;
  void set_params(const GbtParams& p) { params_ = p; }
  void fit_fixed(const Eigen::MatrixXd& x, const Eigen::VectorXd& y);

  struct TreeNode {
    int feature = -1;  ///< -1: leaf
    double split = 0.0;
    double value = 0.0;
    int left = -1, right = -1;
  };

 private:
  std::uint64_t seed_;
  bool cv_;
  GbtParams params_;
  double base_ = 0.0;
  std::vector<std::vector<TreeNode>> trees_;
};

/// One hidden layer of tanh units, trained full-batch by Adam on the MSE of the standardised target with
/// a small L2 penalty; deterministic from the seed.
class MlpRegressor final : public Regressor {
 public:
  explicit MlpRegressor(std::uint64_t seed = 0, int hidden = 16, int epochs = 2000)
      : seed_(seed), hidden_(hidden), epochs_(epochs) {}
  [[nodiscard]] std::string name() const override { return "mlp"; }
  void fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) override;
  [[nodiscard]] Eigen::VectorXd predict(const Eigen::MatrixXd& x) const override;

 private:
  std::uint64_t seed_;
  int hidden_;
  int epochs_;
  Eigen::MatrixXd w1_;
  Eigen::VectorXd b1_, w2_;
  double b2_ = 0.0, y_mean_ = 0.0, y_std_ = 1.0;
};

/// Mean squared error of `model` over k-fold cross-validation (folds from a seeded shuffle).
[[nodiscard]] double cross_validated_mse(const std::function<std::unique_ptr<Regressor>()>& make,
                                         const Eigen::MatrixXd& x, const Eigen::VectorXd& y, int folds,
                                         std::uint64_t seed);

/// Rows of `x` at `rows`.
[[nodiscard]] Eigen::MatrixXd take_rows(const Eigen::MatrixXd& x, const std::vector<Eigen::Index>& rows);
[[nodiscard]] Eigen::VectorXd take_rows(const Eigen::VectorXd& y, const std::vector<Eigen::Index>& rows);
/// 0..n-1 shuffled by Fisher-Yates with the portable generator.
[[nodiscard]] std::vector<Eigen::Index> shuffled_indices(Eigen::Index n, std::uint64_t seed);

}  // namespace fleetwatt::models::fit
