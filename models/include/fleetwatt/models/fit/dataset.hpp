// A fitting data set drawn from a records table: the feature matrix, the target, optional group labels for
// transfer tables, and the z-score scaler that standardises features (saved with every fitted model).
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "fleetwatt/models/fit/records.hpp"

namespace fleetwatt::models::fit {

/// Per-feature standardisation x' = (x - mean) / std; a feature constant in the data it was fitted on
/// keeps std 1 so that it maps to 0 instead of dividing by zero.
struct Scaler {
  Eigen::VectorXd mean;
  Eigen::VectorXd std;

  [[nodiscard]] static Scaler fit(const Eigen::MatrixXd& x);
  [[nodiscard]] Eigen::MatrixXd transform(const Eigen::MatrixXd& x) const;
};

/// Metadata columns `fit` uses as features by default when present (the job metadata a site's telemetry comes
/// with).
[[nodiscard]] const std::vector<std::string>& default_feature_columns();
/// Columns that are measurements, never features by default.
[[nodiscard]] const std::vector<std::string>& measured_columns();

struct Dataset {
  std::string source;
  std::string target;
  std::vector<std::string> features;
  Eigen::MatrixXd x;  ///< rows x features, raw units
  Eigen::VectorXd y;
  std::vector<std::string> groups;   ///< group label per row (empty without a group column)
  std::vector<std::string> skipped;  ///< default features left out, with the reason ("gpus (constant)")

  [[nodiscard]] Eigen::Index rows() const noexcept { return x.rows(); }
};

/// Builds the data set. `features` empty: the default metadata columns present, or else every numeric
/// column that is neither the target nor a measurement; constant default columns are skipped. Throws
/// ConfigError for an unknown or constant explicitly named feature, and for fewer than `min_rows` rows;
/// TraceFormatError (file, line, column) for a non-numeric cell.
[[nodiscard]] Dataset make_dataset(const RecordTable& table, const std::string& target,
                                   const std::vector<std::string>& features,
                                   const std::string& group_column = {}, Eigen::Index min_rows = 10);

/// Pearson correlation of two samples (0 when either is constant).
[[nodiscard]] double pearson(const Eigen::VectorXd& a, const Eigen::VectorXd& b);

/// Mutual information (nats) between two continuous samples by the Kraskov-Stoegbauer-Grassberger
/// estimator (algorithm 1, Chebyshev distance, k neighbours), as scikit-learn's mutual_info_regression
/// computes it: both samples scaled to unit variance, a 1e-10 jitter from `seed` breaking ties, clipped at 0.
[[nodiscard]] double mutual_information_knn(const Eigen::VectorXd& a, const Eigen::VectorXd& b, int k = 5,
                                            std::uint64_t seed = 0);

/// One row of the feature-selection table (the paper's Table 2).
struct FeatureScore {
  std::string feature;
  double pearson = 0.0;
  double mutual_info = 0.0;
  bool selected = false;
};

/// Scores every feature against the target and selects those whose |Pearson| or mutual information
/// reaches `threshold`; when none does, the one with the largest mutual information is kept.
[[nodiscard]] std::vector<FeatureScore> score_features(const Dataset& d, double threshold = 0.3, int k = 5,
                                                       std::uint64_t seed = 0);

/// The data set restricted to the selected features.
[[nodiscard]] Dataset select_features(const Dataset& d, const std::vector<FeatureScore>& scores);

}  // namespace fleetwatt::models::fit
