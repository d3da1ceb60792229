// The clock model's fit on the Zeus power-limit sweeps (see the header).
#include "fleetwatt/models/fit/clock_model_fit.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <tuple>
#include <unsupported/Eigen/NonLinearOptimization>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/models/fit/power_law_fit.hpp"

namespace fleetwatt::models {
std::vector<ClockSample> read_zeus_power_sweep(const std::filesystem::path& csv, const std::string& gpu,
                                               double tdp_W) {
  std::ifstream in(csv);
  if (!in) throw core::TraceFormatError({csv.string(), 0, 0}, "file", "cannot open");
  core::CsvReader r(in, csv.string());
  r.read_header(
      {"dataset", "network", "batch_size", "optimizer", "power_limit", "time_per_epoch", "average_power"});
  struct Row {
    double limit, time, power;
  };
  std::map<std::string, std::vector<Row>> runs;  // one workload at every limit
  while (auto row = r.next()) {
    const std::string key = fmt::format("{}/{}/{}/{}", r.text(*row, "dataset"), r.text(*row, "network"),
                                        r.text(*row, "batch_size"), r.text(*row, "optimizer"));
    runs[key].push_back(
        {r.number(*row, "power_limit"), r.number(*row, "time_per_epoch"), r.number(*row, "average_power")});
  }
  std::vector<ClockSample> out;
  for (auto& [key, rows] : runs) {
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.limit < b.limit; });
    const Row& full = rows.back();  // the highest limit: full clocks
    for (std::size_t i = 0; i + 1 < rows.size(); ++i)
      if (rows[i].limit < full.power)
        out.push_back({gpu, key, tdp_W, rows[i].limit, full.power, rows[i].time / full.time});
  }
  return out;
}

double clock_model_error(const ClockModel& model, const std::vector<ClockSample>& samples) {
  if (samples.empty()) return 0.0;
  double sum = 0.0;
  for (const auto& s : samples)
    sum += std::abs(model.stretch(s.uncapped_W, s.cap_W, s.tdp_W) - s.time_ratio) / s.time_ratio;
  return sum / static_cast<double>(samples.size());
}

namespace {
/// Relative residuals (stretch - ratio) / ratio over x = (floor_fraction, clock_bound_share), with their
/// Jacobian: stretch = b / f + 1 - b, f = (C - a T) / (P - a T) where the cap bites and f is not clamped.
struct StretchResiduals {
  const std::vector<ClockSample>& samples;
  [[nodiscard]] int values() const { return static_cast<int>(samples.size()); }
  [[nodiscard]] int inputs() const { return 2; }
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& f) const {
    const ClockModel m{x(0), x(1)};
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const auto& s = samples[i];
      f(static_cast<Eigen::Index>(i)) =
          (m.stretch(s.uncapped_W, s.cap_W, s.tdp_W) - s.time_ratio) / s.time_ratio;
    }
    return 0;
  }
  int df(const Eigen::VectorXd& x, Eigen::MatrixXd& j) const {
    const ClockModel m{x(0), x(1)};
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const auto& s = samples[i];
      const auto r = static_cast<Eigen::Index>(i);
      const double f = m.clock_fraction(s.uncapped_W, s.cap_W, s.tdp_W);
      const double below = s.uncapped_W - x(0) * s.tdp_W;
      const bool free = s.cap_W < s.uncapped_W && below > 0.0 && f > ClockModel::kMinClock && f < 1.0;
      const double df_da = free ? s.tdp_W * (s.cap_W - s.uncapped_W) / (below * below) : 0.0;
      j(r, 0) = -x(1) / (f * f) * df_da / s.time_ratio;
      j(r, 1) = (1.0 / f - 1.0) / s.time_ratio;
    }
    return 0;
  }
};
}  // namespace

ClockFit fit_clock_model(const std::vector<ClockSample>& samples) {
  if (samples.size() < 4)
    throw FitError(fmt::format("clock-model fit: {} capped samples; at least 4 are needed", samples.size()));
  StretchResiduals residuals{samples};
  Eigen::LevenbergMarquardt<StretchResiduals> lm(residuals);
  lm.parameters.maxfev = 4000;
  // Start where the physics says: a floor near the resident power (~20 % of TDP), half the time clock-bound.
  Eigen::VectorXd x(2);
  x << 0.2, 0.5;
  const auto status = lm.minimize(x);
  using namespace Eigen::LevenbergMarquardtSpace;
  const bool converged = status == RelativeReductionTooSmall || status == RelativeErrorTooSmall ||
                         status == RelativeErrorAndReductionTooSmall || status == CosinusTooSmall ||
                         status == FtolTooSmall || status == XtolTooSmall || status == GtolTooSmall;
  if (!converged || !(x(0) >= 0.0 && x(0) < 1.0) || !(x(1) > 0.0 && x(1) <= 1.5))
    throw FitError(fmt::format("clock-model fit did not converge (status {}, floor {:.3f}, share {:.3f})",
                               static_cast<int>(status), x(0), x(1)));
  ClockFit fit;
  fit.model = ClockModel{x(0), x(1)};
  fit.mean_relative_error = clock_model_error(fit.model, samples);
  return fit;
}

}  // namespace fleetwatt::models
