// The step-level power waveform of a synchronous training job: one training step as each
// pipeline stage runs it. A step is compute, the pipeline bubble, exposed communication and exposed data
// loading; stage k of a pipeline starts its compute k micro-batch slots after stage 0 (the fill) and waits
// the other pp - 1 - k slots after it (the drain), so the stages draw out of phase, and all stages
// communicate and load together at the step's end. All GPUs of a stage switch together: the engine
// changes a stage's draw once per segment, never GPU by GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "fleetwatt/sim/fleet/cluster.hpp"

namespace fleetwatt::sim {

struct PeakSplit;

/// One step on the integer clock: its parts per stage (each stage computes `compute` and waits `bubble`)
/// and what the GPUs draw in each. Positions are nominal (uncapped) time since the step's start.
struct StepShape {
  std::uint32_t stages = 1;  ///< pipeline stages drawn apart (1: the whole job in phase)
  Duration compute, bubble, comm, io;
  Duration slot;  ///< one micro-batch slot: the bubble / (stages - 1), the phase shift between stages
  double compute_W = 0.0, bubble_W = 0.0, comm_W = 0.0, io_W = 0.0;

  /// One step of a peak split that covers `steps` identical steps of a job on `n_gpus` GPUs in `pp`
  /// pipeline stages (a plan without a bubble has nothing to draw apart: one stage).
  [[nodiscard]] static StepShape of(const PeakSplit& split, double steps, std::uint32_t pp,
                                    std::uint32_t n_gpus);
  /// The step period.
  [[nodiscard]] Duration step() const { return compute + bubble + comm + io; }

  /// What stage k draws from position x on, and the position (> x, at most step()) where that ends.
  struct Segment {
    double W;
    Duration end;
  };
  [[nodiscard]] Segment at(std::uint32_t k, Duration x) const;
  /// Mean per-GPU power over a step with each part capped at cap_W (0: no cap).
  [[nodiscard]] double mean_W(double cap_W) const;
  /// Same parts, powers and stages (a smoothed step built for one shape fits only it).
  [[nodiscard]] bool operator==(const StepShape&) const = default;
};

/// A step-level job's waveform in progress (Job::wave).
struct StepWave {
  StepShape shape;
  std::uint32_t every = 1;        ///< steps between checkpoints: the steps of a full peak phase
  std::uint64_t total_steps = 0;  ///< steps of the whole job (its epochs x the plan's steps per epoch)
  std::uint64_t steps_now = 0;    ///< steps in the current peak phase (the last one may be short)
  Duration done;                  ///< nominal time of the current peak phase done at `at`
  Time at;
  EventId event = 0;            ///< the next segment boundary
  std::vector<double> stage_W;  ///< what each stage's GPUs draw now
  std::vector<double> next_W;   ///< scratch: what they draw from the segment boundary being handled
  /// The job's GPUs stage by stage where its rank order interleaves the stages (empty: its GPUs, whose
  /// k-th slice of GPUs / stages is stage k).
  std::vector<GpuIndex> stage_gpus;
  /// Each stage's GPUs server by server: stage k's runs are stage_runs[stage_run_begin[k], [k + 1]).
  std::vector<NodeRun> stage_runs;
  std::vector<std::uint32_t> stage_run_begin;
};

}  // namespace fleetwatt::sim
