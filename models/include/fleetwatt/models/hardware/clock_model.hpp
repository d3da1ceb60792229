// The one clock model: how a GPU's power and a phase's duration respond to a power cap. The predictor (a
// job's power_limit_w), the engine (GPU caps set by policies while a job runs) and the policies (what a
// cap will cost before they set it) all ask it, so a cap means the same thing everywhere.
//
// Model: a GPU's draw is a floor that does not follow the clock (leakage, memory refresh, fans; a
// fraction of the TDP) plus a part proportional to the clock fraction f. A phase drawing P at full clocks
// under a cap C < P runs at f = (C - F) / (P - F) and draws C. Only part of its time follows the clock
// (the rest waits on memory, the host or the network), so it lasts beta / f + (1 - beta) times as long.
// F / TDP and beta are fitted (least squares on relative time error) on the Zeus power-limit sweeps
// (../shared/data/zeus-nsdi23: A40, Quadro RTX 6000, V100; 5 workloads, many batch sizes);
// docs/predictors.md gives the fit, its errors leaving one GPU out, and the cube law it replaces.
#pragma once

#include <string>

namespace fleetwatt::models {

struct ClockModel {
  // The defaults are the fitted constants (clock_model()).
  double floor_fraction = 0.293;     ///< power that does not follow the clock, as a fraction of TDP
  double clock_bound_share = 0.192;  ///< share of a capped phase's time that stretches as 1 / f

  /// Clock fraction in (0, 1] that brings a phase drawing `power_W` at full clocks to `cap_W` (1 without
  /// a cap, cap_W <= 0, or when the phase already fits). Never below kMinClock.
  [[nodiscard]] double clock_fraction(double power_W, double cap_W, double tdp_W) const noexcept;
  /// How much longer the phase lasts under the cap: beta / f + (1 - beta), >= 1.
  [[nodiscard]] double stretch(double power_W, double cap_W, double tdp_W) const noexcept;
  /// What the GPU draws under the cap: min(power, cap) (the whole draw when cap_W <= 0).
  [[nodiscard]] static double capped_power(double power_W, double cap_W) noexcept {
    return cap_W > 0.0 && cap_W < power_W ? cap_W : power_W;
  }

  /// Lowest clock fraction the model returns: caps at or below the floor stretch a phase 20x, not forever.
  static constexpr double kMinClock = 0.05;
};

/// The fitted constants (see the header comment).
[[nodiscard]] const ClockModel& clock_model() noexcept;

}  // namespace fleetwatt::models
