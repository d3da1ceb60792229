// A job as the engine runs it: its spec, its predicted phases, and its life (arrival -> queued -> running
// epochs of peak then valley -> finished; a step-level job first runs its start-up, and its epochs are its
// checkpoint intervals, each peak drawn step by step; with [failures], interruptions and restarts between).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "fleetwatt/core/event_queue.hpp"
#include "fleetwatt/core/time.hpp"
#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"
#include "fleetwatt/sim/fleet/power_smoothing.hpp"
#include "fleetwatt/sim/fleet/step_waveform.hpp"

namespace fleetwatt::sim {

enum class JobState { pending, queued, running, finished };
/// startup: a step-level job's model load and warm-up; restart: after an interruption ([failures]), the
/// restart delay then the reload ramp (JobFailures::stage).
enum class JobPhase { none, startup, peak, valley, restart };

[[nodiscard]] const char* to_string(JobState s) noexcept;

/// One epoch's peak phase as it runs: the plan's compute, comm, io and pipeline-bubble parts, comm and io
/// re-timed by the network when there is one (per GPU). The engine accounts each peak phase by these
/// shares.
struct PeakSplit {
  double compute_s = 0.0, comm_s = 0.0, io_s = 0.0, bubble_s = 0.0;
  double compute_W = 0.0, comm_W = 0.0, io_W = 0.0, bubble_W = 0.0;
  /// A step-level plan's comm_s by parallel group (jobs::CommGroup); zero for an epoch-level plan.
  std::array<double, jobs::kCommGroups> comm_by_group{};
  [[nodiscard]] double duration_s() const noexcept { return compute_s + comm_s + io_s + bubble_s; }
  [[nodiscard]] double energy_J() const noexcept {
    return compute_W * compute_s + comm_W * comm_s + io_W * io_s + bubble_W * bubble_s;
  }
  /// Time-weighted power of the whole peak phase (compute alone keeps its power exactly).
  [[nodiscard]] double mean_W() const noexcept {
    const double t = duration_s();
    return (comm_s > 0.0 || io_s > 0.0 || bubble_s > 0.0) && t > 0.0 ? energy_J() / t : compute_W;
  }
  /// The peak parts of a plan as they stand.
  [[nodiscard]] static PeakSplit of(const jobs::EpochPlan& plan) noexcept;
};

/// A job's interruptions ([failures], sim/src/engine/engine_failures.cpp). Failures strike only while the job
/// runs its epochs (not paused, not restarting): its exposure. Each interruption loses the work since the
/// start of the current epoch (its last checkpoint), holds the GPUs at idle for the restart delay, reloads at
/// the checkpoint power for the ramp, then redoes the epoch.
struct JobFailures {
  enum class Stage : std::uint8_t { none, delay, ramp };
  double rate_per_gpu_s = 0.0;  ///< this job's rate (0: never interrupted)
  std::uint64_t draws = 0;      ///< inter-failure gaps drawn so far from its stream
  double left_s = 0.0;          ///< exposure left until the next interruption
  Time exposed_since;           ///< start of the exposure in progress (while exposed)
  bool exposed = false;
  EventId event = 0;  ///< the next interruption, when it falls before the horizon
  Stage stage = Stage::none;
  Time epoch_start;             ///< start of the current epoch (the last checkpoint)
  Duration epoch_paused;        ///< paused time in the current epoch (no work lost there)
  Time paused_at;               ///< start of the pause in progress
  double epoch_energy_J = 0.0;  ///< job.energy_J at the epoch's start
  // Totals over [0, horizon) (an interruption counts when it strikes in the window).
  std::uint32_t interruptions = 0;
  double lost_gpu_s = 0.0;      ///< GPU-seconds of work redone (the epoch so far at each interruption)
  double lost_J = 0.0;          ///< GPU energy of that work
  double restart_s = 0.0;       ///< time in restart delays and ramps
  double restart_J = 0.0;       ///< GPU energy of those
  double exposure_gpu_s = 0.0;  ///< GPU-seconds exposed to failures
};

/// A job's place in the network model (sim/fleet/network_model.hpp), when the scenario has a [topology]: kept
/// in the job, which the engine touches anyway, so that an epoch reaches its flows without a lookup.
struct NetworkHold {
  std::uint32_t handle = 0;  ///< its id in topologies::FleetNetwork while its flows are there
  bool active = false;       ///< started on the network and not finished
  bool paused = false;       ///< flows removed while the job is suspended
};

/// One epoch as it runs, per GPU: the plan's peak parts with those the network owns re-timed (the value
/// NetworkModel::next_epoch returns; without a network, the plan's own parts), and its peak and valley
/// phases on the integer clock (a step-level job's peak: the steps to its next checkpoint; a valley: the
/// checkpoint as the fabric or an asynchronous write lets it end). It is a value the engine sets, from the
/// plan when the job takes a GPU type's run and anew at each phase, never a copy of the plan written into.
class EpochRun {
 public:
  /// The plan's epoch, unchanged.
  [[nodiscard]] static EpochRun of(const jobs::EpochPlan& plan);
  /// The peak's parts as they run, per GPU.
  [[nodiscard]] const PeakSplit& parts() const noexcept { return parts_; }
  /// Per-GPU power of the peak (the time-weighted mean of its parts, taken when they are set: every phase
  /// change reads it).
  [[nodiscard]] double peak_W() const noexcept { return peak_W_; }
  /// Sets the peak's parts (the network's re-timing of this epoch).
  void set_parts(const PeakSplit& parts) noexcept {
    parts_ = parts;
    peak_W_ = parts.mean_W();
  }

  Duration peak;
  Duration valley;

 private:
  PeakSplit parts_;
  double peak_W_ = 0.0;
};

/// The GPU type a job runs on, set at start. Before that, on a fleet of several GPU types, its plan, epoch
/// and spec.epochs are those of the reference type (the first node group's) and group is kNoGroup.
struct JobGpuType {
  std::uint32_t group = kNoGroup;  ///< node group of its GPUs (FleetLayout order)
  std::string preset;              ///< GPU preset id of its GPUs
  double idle_W = 0.0;             ///< idle power of each of its GPUs
  double tdp_W = 0.0;              ///< TDP of each of its GPUs (the clock model's scale)
};

/// What policies set on a running job (sim/policies): its run-time limit, pausing and power cap, and the GPU
/// time each has cost it.
struct JobControls {
  EventId stop_event = 0;           ///< the spec's limit_s, when it cuts the job short
  Time stop_at;                     ///< when that limit strikes (while not paused)
  bool paused = false;              ///< suspended in place: GPUs held at idle power
  Duration phase_left;              ///< rest of the current phase while paused
  Duration stop_left;               ///< rest of the limit while paused
  double power_cap_W = 0.0;         ///< per-GPU cap (0: none); phases above it run at it, stretched
  double phase_stretch = 1.0;       ///< how much slower than planned its phase runs (its cap)
  double paused_gpu_seconds = 0.0;  ///< GPU time lost to pauses
  double capped_gpu_seconds = 0.0;  ///< GPU time lost to power caps (stretched minus nominal phase time)
};

/// Where a job's time and GPU energy went (all its GPUs for energy; up to the horizon), by epoch part:
/// compute, exposed gradient communication and exposed data loading in peak phases, checkpoint (write and
/// end-of-epoch work) in valleys. Pipeline bubbles are the peak phases' own part; the start-up (model load,
/// warm-up) is a step-level job's.
struct JobParts {
  double compute_s = 0.0, comm_s = 0.0, io_s = 0.0, checkpoint_s = 0.0, bubble_s = 0.0, startup_s = 0.0;
  /// comm_s of a step-level plan by parallel group (tensor-, context-, pipeline-, data-parallel).
  std::array<double, jobs::kCommGroups> comm_group_s{};
  double compute_J = 0.0, comm_J = 0.0, io_J = 0.0, checkpoint_J = 0.0, bubble_J = 0.0, startup_J = 0.0;
};

struct Job {
  jobs::JobSpec spec;
  /// The predictor's per-GPU epoch plan on its GPU type: the job's only record of what it is, fixed while
  /// it runs (re-taken only when a fleet of several GPU types starts it on a type of its own).
  jobs::EpochPlan plan;
  EpochRun epoch;  ///< the epoch in progress, or the last one run, as it runs
  /// Step-level jobs (docs/predictors.md "Step-level power waveform"): each peak phase drawn step by step,
  /// stage by stage; the start-up before the first step.
  bool stepped = false;
  StepWave wave;
  Duration startup;

  // Its life: state and phase, and their clocks.
  JobState state = JobState::pending;
  JobPhase phase = JobPhase::none;
  Time submit;
  Time start;
  Time end;
  Time phase_start;
  Time phase_end;  ///< when the current phase ends (while not paused)
  EventId next_event = 0;
  std::uint32_t epochs_done = 0;
  /// An asynchronous checkpoint's background write: when it ends, and its event while it runs (0: none).
  Time write_end;
  EventId write_event = 0;

  // Where it runs.
  Placement gpus;                 ///< its GPUs (set at start)
  std::vector<NodeRun> gpu_runs;  ///< its GPUs server by server (set at start, for the power ledger)
  JobGpuType gpu_type;            ///< their type (set at start)
  /// Several GPU types, before start: the highest per-GPU phase power over the types and the lowest idle
  /// power, so power-aware policies bound what a start may add whatever type it gets (0: use peak_W()).
  double queued_peak_W = 0.0;
  double queued_idle_W = 0.0;
  NetworkHold network;  ///< its flows, with a [topology]

  JobControls controls;  ///< what policies set on it

  // What it draws and has drawn.
  double drawn_W = 0.0;   ///< what each of its GPUs draws now, as the job meter metered it
  double energy_J = 0.0;  ///< GPU energy of this job so far (all its GPUs)
  JobParts parts;         ///< that energy and its time by epoch part
  double peak_phase_s = 0.0, peak_phase_J = 0.0;  ///< time and GPU energy of the peak phase in progress
  /// [smoothing] (sim/fleet/power_smoothing.hpp): what its GPUs draw over the work's own draw, set at start;
  /// a step-level job's smoothed step; what the work alone would draw now (per GPU, as drawn_W); and the
  /// extra GPU energy of smoothing or burn so far (all its GPUs, over [0, horizon)).
  PowerSmoothing smoothing;
  SmoothedStep smoothed;
  double raw_W = 0.0;
  double smoothing_J = 0.0;
  bool smoothing_on = false;  ///< the run smooths some job (the job table then has the smoothing column)
  bool failures_on = false;   ///< the run has [failures] enabled (the job table then has their columns)
  JobFailures failures;

  /// Per-GPU power of the peak phase as it runs (the time-weighted mean of its parts).
  [[nodiscard]] double peak_W() const noexcept { return epoch.peak_W(); }
  /// Per-GPU power of the valley (checkpoint) phase: the plan's.
  [[nodiscard]] double valley_W() const noexcept { return plan[jobs::PartKind::checkpoint].W; }
  /// Predicted run time on an idle fleet: start-up + epochs * (peak + valley) (a step-level job's last
  /// checkpoint interval counted whole).
  [[nodiscard]] Duration predicted_runtime() const {
    return startup + (epoch.peak + epoch.valley) * spec.epochs;
  }
  /// What the job will run given its limit: min(predicted run time, limit_s).
  [[nodiscard]] Duration expected_runtime() const {
    const Duration p = predicted_runtime();
    if (!spec.limit_s) return p;
    const Duration l = Duration::from_seconds(*spec.limit_s);
    return l < p ? l : p;
  }
};

/// Seconds of [a, b) that fall in the run's window (from 0 on): warm-up time counts nowhere.
[[nodiscard]] inline double window_seconds(Time a, Time b) {
  return (std::max(b, Time::zero()) - std::max(a, Time::zero())).seconds();
}

// A phase as the job runs it under its power cap (the engine, its controls and failures use these).
/// What each of its GPUs draws in `phase`: the phase's power, at most the cap (a restart's delay: idle).
[[nodiscard]] double phase_power(const Job& job, JobPhase phase);
/// How much slower than planned it runs `phase` under its cap (the clock model; 1: no cap).
[[nodiscard]] double phase_stretch(const Job& job, JobPhase phase);
/// How long `phase` lasts under its cap.
[[nodiscard]] Duration phase_length(const Job& job, JobPhase phase);

}  // namespace fleetwatt::sim
