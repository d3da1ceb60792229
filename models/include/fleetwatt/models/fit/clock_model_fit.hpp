// How the clock model's two constants (models/hardware/clock_model.hpp) are fitted: the rows of the Zeus
// power-limit sweeps and a least-squares fit of the time they take under a cap.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "fleetwatt/models/hardware/clock_model.hpp"

namespace fleetwatt::models {

/// One row of a power-limit sweep, relative to the same workload at its highest limit.
struct ClockSample {
  std::string gpu;
  std::string workload;     ///< dataset/network/batch/optimizer, for messages
  double tdp_W = 0.0;       ///< the board's TDP
  double cap_W = 0.0;       ///< the power limit of this row
  double uncapped_W = 0.0;  ///< average power at the highest limit (full clocks)
  double time_ratio = 1.0;  ///< time per epoch here / at the highest limit
};

/// The rows of one Zeus summary_power_<gpu>.csv whose limit is below the workload's uncapped draw (where a
/// cap can bite). Throws TraceFormatError (file:line) on a malformed file.
[[nodiscard]] std::vector<ClockSample> read_zeus_power_sweep(const std::filesystem::path& csv,
                                                             const std::string& gpu, double tdp_W);

struct ClockFit {
  ClockModel model;
  double mean_relative_error = 0.0;  ///< of the time ratio, over the samples fitted
};

/// Least-squares fit of floor_fraction and clock_bound_share to the samples' time ratios (relative
/// residuals; Levenberg-Marquardt). Throws FitError when there are too few samples or it cannot converge.
[[nodiscard]] ClockFit fit_clock_model(const std::vector<ClockSample>& samples);
/// Mean relative error of `model`'s stretch against the samples' time ratios.
[[nodiscard]] double clock_model_error(const ClockModel& model, const std::vector<ClockSample>& samples);

}  // namespace fleetwatt::models
