// Grid signals: carbon intensity (g/kWh) and electricity price time series read from CSV, and the exact
// integral of a piecewise-constant facility power against them. Interpolation is a step (previous value):
// each sample holds from its own time until the next sample's, which is how grid operators publish
// interval averages and makes the integral of piecewise-constant power exact (a sum of products over the
// merged breakpoints). Before the first sample the first value holds; after the last, the last value holds,
// or the series repeats when it is periodic (a day-long signal over a week-long run).
#pragma once

#include <cstddef>
#include <filesystem>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::sim {

/// Joules in one kilowatt-hour.
inline constexpr double kJoulesPerKwh = 3.6e6;

class GridSignal {
 public:
  GridSignal() = default;
  /// Samples at strictly increasing times t_s (simulation seconds). `period_s` > 0 makes the series repeat
  /// with that period, starting at t_s.front(); it must be longer than the span of the samples.
  GridSignal(std::vector<double> t_s, std::vector<double> values, std::string unit, double period_s = 0.0);

  /// The value in force at time t (step interpolation).
  [[nodiscard]] double at(double t) const;
  /// Integral of the signal over [t0, t1] (unit x s); t1 >= t0.
  [[nodiscard]] double integral(double t0, double t1) const;
  /// Mean of the signal over [t0, t1] (t1 > t0).
  [[nodiscard]] double mean(double t0, double t1) const { return integral(t0, t1) / (t1 - t0); }

  [[nodiscard]] const std::vector<double>& times() const noexcept { return t_; }
  [[nodiscard]] const std::vector<double>& values() const noexcept { return v_; }
  [[nodiscard]] const std::string& unit() const noexcept { return unit_; }
  [[nodiscard]] double period_s() const noexcept { return period_; }
  [[nodiscard]] bool empty() const noexcept { return t_.empty(); }

 private:
  /// Integral from t_.front() to t (negative before it), without wrapping.
  [[nodiscard]] double cumulative(double t) const;
  [[nodiscard]] double cumulative_wrapped(double t) const;

  std::vector<double> t_, v_;
  std::vector<double> prefix_;  ///< prefix_[i] = integral from t_[0] to t_[i]
  std::string unit_;
  double period_ = 0.0;
};

/// The largest magnitude a signal value may have after scaling (g/kWh, price per MWh).
inline constexpr double kMaxSignalMagnitude = 1e6;

struct GridSignalOptions {
  std::string time_column;   ///< default: the first column whose name contains "time" or "date"
  std::string value_column;  ///< default: a column named "value", else the last numeric column
  double scale = 1.0;        ///< multiplies every value (unit conversion: lb/MWh -> g/kWh is 0.45359237)
  /// The source time that simulation time zero maps to: a timestamp ("2023-06-08 00:00:00") or, for
  /// offset columns, seconds. Default: the first sample.
  std::string start;
  bool repeat = false;  ///< repeat the series after its last sample (period = span + last step)
  std::string unit;     ///< e.g. "g/kWh" or "USD/MWh", for output attributes
};

/// Reads a signal from CSV: a time column (ISO-8601 timestamps or seconds) and a value column. Malformed
/// rows, non-increasing times and values beyond kMaxSignalMagnitude are TraceFormatErrors naming the file,
/// line and column.
[[nodiscard]] GridSignal read_grid_signal_csv(const std::filesystem::path& file,
                                              const GridSignalOptions& options);
[[nodiscard]] GridSignal read_grid_signal_csv(std::istream& in, const std::string& name,
                                              const GridSignalOptions& options);

/// Integrates power x signal exactly for a piecewise-constant power fed in time order: add(t0, t1, P) means
/// P watts held over [t0, t1]. total() is in J x signal unit (carbon: J·g/kWh; divide by kJoulesPerKwh for
/// g).
class SignalIntegrator {
 public:
  explicit SignalIntegrator(const GridSignal& signal) : signal_(&signal) {}
  void add(double t0_s, double t1_s, double power_W);
  [[nodiscard]] double total() const noexcept { return sum_ + compensation_; }

 private:
  const GridSignal* signal_;
  double sum_ = 0.0, compensation_ = 0.0;  ///< Neumaier summation: long runs add millions of terms
};

}  // namespace fleetwatt::sim
