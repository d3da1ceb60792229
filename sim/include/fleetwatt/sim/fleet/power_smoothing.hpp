// GPU power smoothing and burn of a running job ([smoothing]): what its GPUs draw instead of
// what the work needs. Both only add power (the work never waits), so a job's timing is unchanged and the
// extra energy is exactly smoothed minus unsmoothed.
//
// burn: software fills every phase below the floor with dummy work up to it: y = max(p, floor).
// smooth: the GPU firmware (NVIDIA's power smoothing: floor, ramp-up rate, ramp-down rate, ramp-down
// hysteresis) holds a level f that follows the floored demand q = max(p, floor): up at ramp_up_w_per_s,
// and after q drops below it, held for hysteresis_s then down at ramp_down_w_per_s towards q; the GPU draws
// y = max(q, f). A rise of the work is never held back (that would stretch the step), so ramp_up only sets
// how much of a short peak the level remembers.
//
// A step-level job's steps repeat, so its smoothed step is the periodic steady state of that rule, stage
// by stage (SmoothedStep). Its ramps are cut into constant sub-pieces of at most a quarter of the facility
// interval, each at the ramp's value at its midpoint: a piece's energy is the ramp's over it exactly, the
// ledger stays piecewise constant, and a facility sample differs from the exact ramp's mean only through the
// one piece it shares with its neighbour (a trapezoid's energy split at the boundary by the midpoint rule).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/jobs/smoothing_mode.hpp"
#include "fleetwatt/sim/fleet/step_waveform.hpp"

namespace fleetwatt::sim {

using jobs::SmoothingMode;

/// [smoothing] on the engine's clock; a job's own mode overrides `mode`.
struct SmoothingSetup {
  SmoothingMode mode = SmoothingMode::off;
  double floor_fraction = 0.0;  ///< of the TDP of the job's GPUs
  double ramp_up_W_per_s = 0.0, ramp_down_W_per_s = 0.0;
  Duration hysteresis = Duration::zero();
};

/// One job's smoothing, per GPU.
struct PowerSmoothing {
  SmoothingMode mode = SmoothingMode::off;
  double floor_W = 0.0;
  double ramp_up_W_per_s = 0.0, ramp_down_W_per_s = 0.0;
  Duration hysteresis = Duration::zero();

  /// The smoothing of a job on GPUs of TDP `tdp_W`: the setup's, in the job's own mode when it has one.
  [[nodiscard]] static PowerSmoothing of(const SmoothingSetup& setup, std::optional<SmoothingMode> job_mode,
                                         double tdp_W);
  [[nodiscard]] bool on() const noexcept { return mode != SmoothingMode::off; }
  /// The floor under a per-GPU cap (0: none): the cap wins.
  [[nodiscard]] double floor_under(double cap_W) const noexcept;
  /// What a GPU draws for a demand `W` held (a phase's level): W raised to the floor; W itself when off.
  [[nodiscard]] double floored(double W, double cap_W) const noexcept;
};

/// A piecewise-constant waveform over one period: each level holds from the previous one's end (or 0).
struct PowerLevel {
  Duration end;
  double W = 0.0;
};

/// A piece of a smoothed waveform: W0 at `begin`, linearly to W1 at `end` (constant when equal).
struct PowerRamp {
  Duration begin, end;
  double W0 = 0.0, W1 = 0.0;
  /// Energy per GPU over the piece (J): the trapezoid.
  [[nodiscard]] double energy_J() const { return 0.5 * (W0 + W1) * (end - begin).seconds(); }
};

/// The periodic steady state of the smoothing rule over one period of `demand` (levels already capped;
/// the last one ends at the period). Pieces never straddle a level's boundary. Burn: the floored levels.
[[nodiscard]] std::vector<PowerRamp> smooth_periodic(std::span<const PowerLevel> demand,
                                                     const PowerSmoothing& s, double cap_W);

/// Constant pieces in place of the ramps: each ramp cut into equal sub-pieces no longer than `max_piece`,
/// each at the ramp's value at its midpoint (its energy exactly the ramp's over it); constant pieces kept.
[[nodiscard]] std::vector<PowerLevel> discretise(std::span<const PowerRamp> ramps, Duration max_piece);

/// A step-level job's smoothed step, stage by stage (built from its StepShape for its cap).
class SmoothedStep {
 public:
  struct Piece {
    Duration end;
    double W = 0.0;      ///< what the stage's GPUs draw
    double raw_W = 0.0;  ///< what the work alone would draw (capped)
  };
  /// Whether it was built for this shape and cap.
  [[nodiscard]] bool fits(const StepShape& shape, double cap_W) const {
    return built_ && shape == shape_ && cap_W == cap_W_;
  }
  void build(const StepShape& shape, const PowerSmoothing& s, double cap_W, Duration max_piece);
  /// Stage k's piece holding at position x of the step (0 <= x < step).
  [[nodiscard]] const Piece& at(std::uint32_t k, Duration x) const;
  /// Mean per-GPU draw over a step (all stages).
  [[nodiscard]] double mean_W() const noexcept { return mean_W_; }

 private:
  bool built_ = false;
  StepShape shape_;
  double cap_W_ = 0.0;
  double mean_W_ = 0.0;
  std::vector<std::vector<Piece>> stages_;
};

}  // namespace fleetwatt::sim
