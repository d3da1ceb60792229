// Fitting the power law by Levenberg-Marquardt (Eigen's unsupported NonLinearOptimization module) and the
// energy regression by ordinary least squares with standard errors, t statistics and 95 % intervals
// (Student's t quantiles from Boost.Math).
#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <unsupported/Eigen/NonLinearOptimization>

#include "fleetwatt/models/fit/power_law_fit.hpp"

namespace fleetwatt::models {
namespace {

/// Residuals eta_model(c_i) - eta_i (percent) over x = (eta_max, ln k, alpha); ln k keeps k positive.
struct EfficiencyResiduals {
  const Eigen::VectorXd& c;    // GFLOP
  const Eigen::VectorXd& eta;  // percent

  [[nodiscard]] int values() const { return static_cast<int>(c.size()); }
  [[nodiscard]] int inputs() const { return 3; }

  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& f) const {
    const double k = std::exp(x(1));
    for (Eigen::Index i = 0; i < c.size(); ++i) f(i) = x(0) * -std::expm1(-k * std::pow(c(i), x(2))) - eta(i);
    return 0;
  }
  int df(const Eigen::VectorXd& x, Eigen::MatrixXd& j) const {
    const double k = std::exp(x(1));
    for (Eigen::Index i = 0; i < c.size(); ++i) {
      const double ca = std::pow(c(i), x(2));
      const double e = std::exp(-k * ca);
      j(i, 0) = -std::expm1(-k * ca);
      j(i, 1) = x(0) * e * ca * k;  // d/d(ln k) = k d/dk
      j(i, 2) = x(0) * e * k * ca * std::log(c(i));
    }
    return 0;
  }
};

}  // namespace

PowerLawFit fit_power_law(const std::vector<double>& flops, const std::vector<double>& seconds,
                          double vmax_flops) {
  if (flops.size() != seconds.size())
    throw FitError(
        fmt::format("power-law fit: {} FLOP counts but {} durations", flops.size(), seconds.size()));
  if (flops.size() < 4)
    throw FitError(
        fmt::format("power-law fit: {} samples; at least 4 are needed for 3 parameters", flops.size()));
  if (!(vmax_flops > 0.0)) throw FitError("power-law fit: the GPU's peak throughput must be positive");
  const auto n = static_cast<Eigen::Index>(flops.size());
  Eigen::VectorXd c(n), eta(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (!(flops[u] > 0.0) || !(seconds[u] > 0.0) || !std::isfinite(flops[u]) || !std::isfinite(seconds[u]))
      throw FitError(
          fmt::format("power-law fit: sample {} has FLOPs {} and seconds {}; both must be positive", i + 1,
                      flops[u], seconds[u]));
    c(i) = flops[u] / kPowerLawFlopUnit;
    eta(i) = 100.0 * flops[u] / seconds[u] / vmax_flops;
  }
  // Starting values: the plateau a little above the best observed efficiency; alpha = 0.75 (the paper's
  // fits lie in 0.47..1); k such that the median-size sample sits at half the plateau.
  std::vector<double> sorted(c.data(), c.data() + n);
  std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.end());
  const double c_mid = sorted[static_cast<std::size_t>(n / 2)];
  Eigen::VectorXd x(3);
  x << 1.05 * eta.maxCoeff(), std::log(std::log(2.0) / std::pow(c_mid, 0.75)), 0.75;

  EfficiencyResiduals residuals{c, eta};
  Eigen::LevenbergMarquardt<EfficiencyResiduals> lm(residuals);
  lm.parameters.maxfev = 2000;
  const auto status = lm.minimize(x);
  using namespace Eigen::LevenbergMarquardtSpace;
  // 1-4: converged by the usual criteria; 6-8: the tolerances cannot be met in floating point, i.e. no
  // further progress is possible from a point that is (numerically) optimal. 0, 5, 9: failure.
  const bool converged = status == RelativeReductionTooSmall || status == RelativeErrorTooSmall ||
                         status == RelativeErrorAndReductionTooSmall || status == CosinusTooSmall ||
                         status == FtolTooSmall || status == XtolTooSmall || status == GtolTooSmall;
  PowerLawFit fit;
  fit.law = {x(0), std::exp(x(1)), x(2)};
  fit.evaluations = static_cast<int>(lm.nfev);
  fit.status = static_cast<int>(status);
  if (!converged || !x.allFinite())
    throw FitError(fmt::format(
        "power-law fit did not converge (Levenberg-Marquardt status {} after {} evaluations); the samples "
        "should span small operations (well below saturation) to large ones (on the plateau)",
        fit.status, fit.evaluations));
  if (fit.law.eta_max_percent <= 0.0 || fit.law.alpha <= 0.0)
    throw FitError(
        fmt::format("power-law fit converged to an unphysical law (eta_max {:.4g} %, alpha {:.4g}); "
                    "efficiency must rise with operation size",
                    fit.law.eta_max_percent, fit.law.alpha));
  Eigen::VectorXd f(n);
  residuals(x, f);
  fit.rmse_percent = std::sqrt(f.squaredNorm() / static_cast<double>(n));
  return fit;
}

double EnergyRegression::predict(const std::vector<double>& x) const {
  if (x.size() + 1 != coef.size())
    throw std::invalid_argument(
        fmt::format("energy regression has {} regressors, got {}", coef.size() - 1, x.size()));
  double e = coef[0];
  for (std::size_t j = 0; j < x.size(); ++j) e += coef[j + 1] * x[j];
  return e;
}

std::string EnergyRegression::table() const {
  std::string out = fmt::format("{:<14}{:>12}{:>12}{:>10}{:>10}{:>12}{:>12}\n", "", "coef", "std err", "t",
                                "P>|t|", "[0.025", "0.975]");
  out += std::string(82, '-') + "\n";
  for (std::size_t j = 0; j < coef.size(); ++j)
    out += fmt::format("{:<14}{:>12.4f}{:>12.4f}{:>10.3f}{:>10.3f}{:>12.4f}{:>12.4f}\n", names[j], coef[j],
                       std_err[j], t_value[j], p_value[j], ci_low[j], ci_high[j]);
  out += std::string(82, '-') + "\n";
  out += fmt::format("R-squared: {:.4f}   Adj. R-squared: {:.4f}   No. observations: {}\n", r_squared,
                     adj_r_squared, observations);
  return out;
}

EnergyRegression fit_energy_regression(const std::vector<std::vector<double>>& x,
                                       const std::vector<double>& energy,
                                       const std::vector<std::string>& regressor_names) {
  const std::size_t n = energy.size(), p = regressor_names.size() + 1;
  if (x.size() != n)
    throw FitError(fmt::format("energy regression: {} rows of durations, {} energies", x.size(), n));
  if (n <= p)
    throw FitError(
        fmt::format("energy regression: {} observations for {} coefficients; need more observations "
                    "than coefficients",
                    n, p));
  Eigen::MatrixXd X(n, p);
  Eigen::VectorXd y(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i].size() != p - 1)
      throw FitError(
          fmt::format("energy regression: row {} has {} values, expected {}", i + 1, x[i].size(), p - 1));
    X(static_cast<Eigen::Index>(i), 0) = 1.0;
    for (std::size_t j = 0; j + 1 < p; ++j)
      X(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j + 1)) = x[i][j];
    y(static_cast<Eigen::Index>(i)) = energy[i];
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(X);
  if (qr.rank() < static_cast<Eigen::Index>(p))
    throw FitError("energy regression: the durations are collinear (a regressor is a combination of others)");
  const Eigen::VectorXd beta = qr.solve(y);
  const Eigen::VectorXd resid = y - X * beta;
  const double dof = static_cast<double>(n - p);
  const double sigma2 = resid.squaredNorm() / dof;
  const Eigen::MatrixXd cov = sigma2 * (X.transpose() * X).inverse();
  const double ybar = y.mean();
  const double tss = (y.array() - ybar).square().sum();

  EnergyRegression r;
  r.names.push_back("const");
  r.names.insert(r.names.end(), regressor_names.begin(), regressor_names.end());
  r.observations = n;
  r.r_squared = tss > 0.0 ? 1.0 - resid.squaredNorm() / tss : 1.0;
  r.adj_r_squared = 1.0 - (1.0 - r.r_squared) * static_cast<double>(n - 1) / dof;
  const boost::math::students_t t_dist(dof);
  const double t_crit = boost::math::quantile(boost::math::complement(t_dist, 0.025));
  for (std::size_t j = 0; j < p; ++j) {
    const auto jj = static_cast<Eigen::Index>(j);
    const double b = beta(jj), se = std::sqrt(cov(jj, jj));
    const double t = se > 0.0 ? b / se : std::numeric_limits<double>::infinity();
    r.coef.push_back(b);
    r.std_err.push_back(se);
    r.t_value.push_back(t);
    r.p_value.push_back(
        std::isfinite(t) ? 2.0 * boost::math::cdf(boost::math::complement(t_dist, std::abs(t))) : 0.0);
    r.ci_low.push_back(b - t_crit * se);
    r.ci_high.push_back(b + t_crit * se);
  }
  return r;
}

}  // namespace fleetwatt::models
