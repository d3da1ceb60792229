// What sets a predicted time, split so a machine's own speeds can re-time it: within a step the GPU's work
// and the host's kernel launches overlap (the roofline's soft knee), and the rest adds (a loading stall,
// exposed communication per step; an epoch's end and checkpoint). A machine's GPU and its host each run
// faster or slower than the datasheet says by a factor of their own, shared by every workload on that
// machine: one host launches every model's kernels alike. Its calibration runs (few-shot calibration, a
// site's runs) fit the two factors, shrunk toward the datasheet (both 1) by a prior.
#pragma once

#include <utility>
#include <vector>

namespace fleetwatt::models {

struct RooflineStep;

struct TimeSplit {
  double steps = 0.0;    ///< steps in the predicted time (0: no split known; one for a step's own time)
  double gpu_s = 0.0;    ///< per step: the GPU's work at full clocks (the roofline's bound)
  double host_s = 0.0;   ///< per step: the host's kernel launches
  double stretch = 1.0;  ///< the clock model's stretch of the step's work
  double other_s = 0.0;  ///< per step beyond the work: loading stall, exposed communication
  double fixed_s = 0.0;  ///< beyond the steps: the epoch's end, its checkpoint

  [[nodiscard]] bool known() const noexcept { return steps > 0.0; }
  /// The time with the GPU's work `gpu` and the host's launches `host` times as long as predicted: (1, 1)
  /// gives the prediction.
  [[nodiscard]] double time_s(double gpu, double host) const noexcept;
  /// How many times as long the step's GPU work and launches take together, overlapped at the knee, with
  /// the GPU's work `gpu` and the host's launches `host` times as long (1 where the split is unknown).
  [[nodiscard]] double work_scale(double gpu, double host) const noexcept;
  /// The share of the time the GPU runs kernels: its work at the clock the step runs at, every step's,
  /// over the whole time (what nvidia-smi's utilization.gpu averages to); 0 where the split is unknown.
  [[nodiscard]] double busy_share() const noexcept;
  /// One step of it: no fixed time.
  [[nodiscard]] TimeSplit one_step() const noexcept { return {1.0, gpu_s, host_s, stretch, other_s, 0.0}; }
};

/// The split of `steps` steps of the roofline's `step`, each `step_s` long (its work and what adds to it),
/// and `fixed_s` beyond them.
[[nodiscard]] TimeSplit time_split(const RooflineStep& step, double steps, double step_s,
                                   double fixed_s) noexcept;

/// The prior's weight against one run's squared log residual: a machine's factors count as uncertain as
/// one calibration run is about its machine.
inline constexpr double kMachinePrior = 1.0;

/// A machine's GPU and host speeds against the datasheet's: how many times as long each takes.
struct MachineFactors {
  double gpu = 1.0, host = 1.0;
  [[nodiscard]] bool operator==(const MachineFactors&) const = default;
};

/// A measured run with its predicted split.
struct SplitRun {
  TimeSplit split;
  double measured_s = 0.0;
};

/// The factors minimising sum (log measured - log split.time_s(gpu, host))^2 + prior x (log^2 gpu +
/// log^2 host) over `runs` (those with a known split and a measured time): a run whose step the host sets
/// says how fast the host is, one the GPU's work sets how fast the GPU is, and the prior holds a factor no
/// run speaks to at 1. Searched on a grid of log factors in [-4, 4], refined to 1e-4; no run: (1, 1).
[[nodiscard]] MachineFactors fit_machine_factors(const std::vector<SplitRun>& runs, double prior);

}  // namespace fleetwatt::models
