// The one place a job's GPU energy is integrated. Every change of what a job's GPUs draw goes through the
// meter, which hands it to the power ledger (facility, node and GPU series) and remembers it; settling a
// job integrates that same draw over the time since, into the job's energy and its epoch parts (the peak
// phase in progress, then split among compute, bubble, comm and io by the phase's plan; valleys as
// checkpoint, a step-level job's start-up as start-up, restarts after an interruption as restart time), and
// counts the GPU time a power cap costs. So the job table and the power series cannot disagree.
#pragma once

#include <limits>
#include <span>

#include "fleetwatt/sim/fleet/job.hpp"
#include "fleetwatt/sim/power/power_ledger.hpp"

namespace fleetwatt::sim {

class JobMeter {
 public:
  explicit JobMeter(PowerLedger& ledger) : ledger_(ledger) {}

  /// The job has just been placed on job.gpus (idle): its servers are cut once for every later change.
  void place(Job& job);

  /// From `t` on the job's GPUs draw `W_per_gpu` each, running `stretch` times slower than planned (a
  /// power cap's clock-model stretch; 1: none). Settle the job first: the span before `t` is at the old draw.
  /// `raw_W` is what the work alone would draw ([smoothing] raises W_per_gpu above it; NaN: the same).
  void draw(Job& job, Time t, double W_per_gpu, double stretch = 1.0,
            double raw_W = std::numeric_limits<double>::quiet_NaN());
  /// A step-level job's pipeline stages (equal contiguous slices of its GPUs, in order) draw `stage_W`
  /// from `t` on; only the stages whose draw changes reach the ledger, and the result sink only when
  /// `record` (/gpus/changes of step segments, off by default). Settle the job first.
  /// `raw_W`: the stages' mean draw without smoothing (NaN: stage_W's own mean).
  void draw_stages(Job& job, Time t, std::span<const double> stage_W, double stretch, bool record,
                   double raw_W = std::numeric_limits<double>::quiet_NaN());
  /// Tells only the result sink that the job's GPUs draw `W_per_gpu` from `t` on (a step-level job's mean
  /// over its step, for /gpus/changes without every segment); energies are untouched.
  void record(const Job& job, Time t, double W_per_gpu);
  /// Integrates the job's draw from its phase start to `t` (nothing while it is paused or between phases),
  /// and smoothing's share of it, and moves the phase start to `t`.
  void settle(Job& job, Time t) const;
  /// Splits the peak phase just ended (or cut short) among compute, bubble, comm and io in proportion to its
  /// split's planned times and energies (caps and pauses included in what is split).
  void close_peak(Job& job) const;

 private:
  /// Stage k's GPUs and their servers (stages set up by draw_stages).
  static std::span<const GpuIndex> stage_gpus(const Job& job, std::size_t k);
  static std::span<const NodeRun> stage_runs(const Job& job, std::size_t k);

  PowerLedger& ledger_;
  std::vector<NodeRun> scratch_runs_;
};

}  // namespace fleetwatt::sim
