// Fitting the operator power law and the energy regression of the paper (models/training/power_law.hpp) on
// measured operator times and energies.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "fleetwatt/models/training/power_law.hpp"

namespace fleetwatt::models {

/// A fit that failed (too few or bad samples, or no convergence); what() says why and what to try.
class FitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PowerLawFit {
  PowerLaw law;
  double rmse_percent = 0.0;  ///< root-mean-square residual of eta, in percentage points
  int evaluations = 0;
  int status = 0;  ///< Eigen LevenbergMarquardt status code
};

/// Fits (eta_max, k, alpha) to (FLOPs, seconds) samples of one operation type by Levenberg-Marquardt
/// (Eigen unsupported), minimising the squared error of eta in percent. Starting values: eta_max from the
/// largest observed efficiency, alpha = 0.75, k putting the half-saturation point at the median sample.
/// Throws FitError with a clear message when inputs are bad or the iteration does not converge.
[[nodiscard]] PowerLawFit fit_power_law(const std::vector<double>& flops, const std::vector<double>& seconds,
                                        double vmax_flops);

/// Ordinary least squares e = h + sum_j h_j t_j with the usual inference.
struct EnergyRegression {
  std::vector<std::string> names;                                        ///< "const" then one per regressor
  std::vector<double> coef, std_err, t_value, p_value, ci_low, ci_high;  ///< 95 % confidence interval
  double r_squared = 0.0, adj_r_squared = 0.0;
  std::size_t observations = 0;

  /// e for one set of regressor values (same order as names without "const").
  [[nodiscard]] double predict(const std::vector<double>& x) const;
  /// The coefficient table in the layout of the paper's tables (statsmodels' OLS summary).
  [[nodiscard]] std::string table() const;
};

/// Fits the regression; `x` holds one row per observation. Throws FitError when there are not more
/// observations than coefficients or the regressors are collinear.
[[nodiscard]] EnergyRegression fit_energy_regression(const std::vector<std::vector<double>>& x,
                                                     const std::vector<double>& energy,
                                                     const std::vector<std::string>& regressor_names);

}  // namespace fleetwatt::models
