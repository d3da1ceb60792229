// Evaluation of symbolic regression against the baselines as the SR paper does it: 8:1:1 train /
// validation / test splits repeated 20 times, MSE and MRE mean +- std per model (its Table 3), and a
// transfer table fitting on one group (architecture family) and predicting another (its Table 4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleetwatt/models/fit/dataset.hpp"
#include "fleetwatt/models/fit/symbolic_regression.hpp"

namespace fleetwatt::models::fit {

/// Every model name evaluate_models knows, in table order.
[[nodiscard]] const std::vector<std::string>& model_names();

struct EvaluationConfig {
  int repeats = 20;
  std::uint64_t seed = 0;
  GpConfig gp;
  std::vector<std::string> models = model_names();
};

struct ModelScores {
  std::string model;
  std::vector<double> mse;  ///< per repeat, target units squared
  std::vector<double>
      mre;  ///< per repeat, mean |prediction - truth| / |truth| in percent (rows with truth 0 skipped)
  double mse_mean = 0, mse_std = 0, mre_mean = 0, mre_std = 0;  ///< std: sample standard deviation
  std::string example_formula;                                  ///< sr: the first repeat's formula
};

struct Evaluation {
  std::string target;
  std::vector<std::string> features;
  Eigen::Index n_train = 0, n_validation = 0, n_test = 0;
  std::vector<ModelScores> models;

  [[nodiscard]] const ModelScores& scores(const std::string& model) const;
};

/// The split sizes for n rows: round(0.8 n) / round(0.1 n) / the rest, each at least 1.
struct SplitSizes {
  Eigen::Index train, validation, test;
};
[[nodiscard]] SplitSizes split_sizes(Eigen::Index n);

/// Repeated 8:1:1 evaluation. The scaler is fitted on each split's training rows; SR uses the validation
/// rows to choose among its candidate programs, the baselines cross-validate inside the training rows.
[[nodiscard]] Evaluation evaluate_models(const Dataset& data, const EvaluationConfig& config);

struct TransferCell {
  std::string train_group, test_group, model;
  double mse = 0, mre = 0;
  Eigen::Index n_train = 0, n_test = 0;
};

/// Every ordered pair of distinct groups with at least `min_rows` rows each: fit on all of the first
/// (SR keeps a tenth of it for validation), predict all of the second.
[[nodiscard]] std::vector<TransferCell> transfer_table(const Dataset& data, const EvaluationConfig& config,
                                                       Eigen::Index min_rows = 5);

/// Mean squared error and mean relative error (percent, skipping zero truths).
[[nodiscard]] double mse(const Eigen::VectorXd& pred, const Eigen::VectorXd& truth);
[[nodiscard]] double mre_percent(const Eigen::VectorXd& pred, const Eigen::VectorXd& truth);

/// Table 3 layout for several targets: one row per model, MSE and MRE mean +- std per target.
[[nodiscard]] std::string format_table3(const std::vector<Evaluation>& evaluations);
[[nodiscard]] std::string table3_csv(const std::vector<Evaluation>& evaluations);
/// Table 4 layout: one row per train -> test pair, MRE (and MSE) per model.
[[nodiscard]] std::string format_table4(const std::string& target, const std::vector<TransferCell>& cells);
[[nodiscard]] std::string table4_csv(const std::string& target, const std::vector<TransferCell>& cells);
/// The feature-selection table (the paper's Table 2).
[[nodiscard]] std::string format_table2(const std::string& target, const std::vector<FeatureScore>& scores,
                                        double threshold);

}  // namespace fleetwatt::models::fit
