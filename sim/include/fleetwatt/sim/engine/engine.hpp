// The simulation: one object per run (never a singleton, so sweeps and tests build many). It owns the
// event queue, the cluster, the jobs and the power ledger; a predictor gives each job's phases and a
// scheduler decides starts. Jobs run epoch by epoch: a peak phase, then a valley phase. Jobs come from a
// job source one at a time (the next arrival is scheduled when the previous one arrives); with a job sink
// attached, finished jobs leave memory in job order, so memory follows the running and queued jobs.
#pragma once

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "fleetwatt/core/event_queue.hpp"
#include "fleetwatt/core/interrupted.hpp"
#include "fleetwatt/jobs/job_source.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/sim/engine/job_sink.hpp"
#include "fleetwatt/sim/engine/run_summary.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"
#include "fleetwatt/sim/fleet/fleet_layout.hpp"
#include "fleetwatt/sim/fleet/job.hpp"
#include "fleetwatt/sim/fleet/power_smoothing.hpp"
#include "fleetwatt/sim/policies/group_views.hpp"
#include "fleetwatt/sim/policies/scheduler.hpp"
#include "fleetwatt/sim/power/facility_model.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"
#include "fleetwatt/sim/power/job_meter.hpp"
#include "fleetwatt/sim/power/power_site.hpp"
#include "fleetwatt/sim/power/ride_through.hpp"
#include "fleetwatt/sim/serving/service_load.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"

namespace fleetwatt::sim {

/// Thrown out of Engine::run when the stop flag is raised (Ctrl-C): the one type every polling layer throws.
using core::Interrupted;

/// The most jobs an engine may hold at once: queued, running, and finished ones waiting behind an earlier
/// running one to be written. A run that draws its jobs as it goes holds only these, but a fleet that cannot
/// keep up with its arrivals queues them without end; past the limit, drawing a job is bad input at `where`
/// (the rate that drives the queue), before memory runs out.
struct HeldJobsLimit {
  std::uint64_t jobs = 0;      ///< 0: no limit
  double bytes_per_job = 0.0;  ///< what one held job costs, for the message
  jobs::SourceLocation where;
  std::string key;
};

/// Job interruptions ([failures], sim/engine/failures_config.hpp), on the engine's clock; off unless enabled.
struct FailureSetup {
  bool enabled = false;
  double rate_per_gpu_hour = 0.0;  ///< a job's own failure_rate_per_gpu_hour overrides it
  Duration restart_delay = Duration::zero();
  Duration restart_ramp = Duration::zero();
  std::uint64_t seed =
      0;  ///< the scenario's seed: job k's gaps come from (seed, its id), a stream of its own
};

struct EngineSetup {
  std::uint32_t nodes = 1;
  std::uint32_t gpus_per_node = 1;
  models::GpuHardware gpu;
  double node_base_W = 0.0;
  /// Non-GPU power that follows the GPUs' (fans, power conversion) per watt of GPU power ([fleet]
  /// node_load_w_per_gpu_w): a node draws node_base_W + (1 + this) x its GPUs' power.
  double node_load_fraction = 0.0;
  double pue = 1.0;
  /// Weather-driven cooling ([facility] cooling = "weather"): the design (design_it_W 0: the fleet's peak
  /// IT power) and its weather. None: facility = IT x pue.
  std::optional<CoolingDesign> cooling;
  std::shared_ptr<const sim::Weather> weather;
  /// On-site batteries ([[facility.battery]]) and the interconnection limit ([grid] import_limit_kw, 0:
  /// none).
  std::vector<BatteryConfig> batteries;
  double import_limit_W = 0.0;
  /// Grid events ([[grid.event]]) the campus does not ride through, as outages, and the return ramp (no
  /// outages: none). An outage that outlasts the UPS interrupts every running job when the UPS runs out.
  RideThroughConfig ride_through;
  /// Grid events in all, and those ridden through (shorter than the IT supplies' ride-through).
  std::uint32_t grid_events = 0, grid_events_ridden_through = 0;
  double carbon_kg_per_J = 0.0;
  Time horizon = Time::from_ns(86'400'000'000'000);
  /// Simulated before 0 ([workload] warmup_s) and kept out of every series and total: the run starts at
  /// -warmup, its window is [0, horizon).
  Duration warmup = Duration::zero();
  Duration facility_interval = Duration::from_ns(1'000'000'000);
  Duration node_interval = Duration::from_ns(10'000'000'000);
  /// Jobs with waveform "auto" and a plan of steps run step by step when the step period is at least
  /// this ([output] step_waveform_min_s; unset: 2 x facility_interval).
  std::optional<Duration> step_waveform_min;
  /// Step segments go to the sink's gpu_change ([output] step_gpu_changes); otherwise the step's mean.
  bool step_gpu_changes = false;
  std::optional<topologies::TopologyConfig> topology;  ///< the interconnect ([topology]); none: no network
  /// Grid signals ([grid.carbon] g/kWh, [grid.price] currency/MWh): when given, the summary's carbon and
  /// cost integrate facility power exactly against them (carbon_kg_per_J is then unused).
  std::shared_ptr<const sim::GridSignal> carbon_signal;
  std::shared_ptr<const sim::GridSignal> price_signal;
  /// Several node groups ([[fleet.group]]), in scenario order; they replace nodes, gpus_per_node, gpu and
  /// node_base_W (which then describe the fleet's totals and its reference, first, group). Empty: one group.
  std::vector<FleetGroup> groups;
  FailureSetup failures;     ///< [failures]
  SmoothingSetup smoothing;  ///< [smoothing] (a job's own mode overrides it)
  HeldJobsLimit held_jobs;   ///< how many jobs the engine may hold at once (none: no limit)
  /// LLM services ([[workload.service]]), each on GPUs of its node group that no job gets.
  std::vector<ServiceLoad> services;
};

/// The groups a setup describes: its `groups`, or one group from nodes, gpus_per_node, gpu, node_base_W.
[[nodiscard]] std::vector<FleetGroup> fleet_groups(const EngineSetup& setup);

/// What the engine reports while it runs (for progress lines).
struct Progress {
  Time now;
  Time horizon;
  std::uint64_t jobs_finished;
  std::uint64_t jobs_total;
  std::uint64_t events;
  Time start = Time::zero();  ///< where the run began (-warmup)
};

class NetworkModel;
class Controls;  // pause, caps, node sleep and wake (engine_controls.hpp)
class Failures;  // interruptions, restarts and lost work (engine_failures.hpp)

class Engine {
 public:
  /// Predicts every job's phases up front (a bad job fails here, before anything is written).
  /// `predictor` must outlive the engine.
  Engine(EngineSetup setup, std::vector<jobs::JobSpec> jobs, const models::PowerPredictor& predictor,
         std::unique_ptr<Scheduler> scheduler, std::unique_ptr<PlacementPolicy> placement);
  /// Takes the jobs from `source`: a list in memory is predicted up front as above; a stream is drawn one
  /// job ahead of the arrivals (a bad generated job then fails during the run, before the file is kept).
  Engine(EngineSetup setup, std::unique_ptr<jobs::JobSource> source, const models::PowerPredictor& predictor,
         std::unique_ptr<Scheduler> scheduler, std::unique_ptr<PlacementPolicy> placement);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Runs to the horizon. `on_progress` is called about every `progress_every` events; a raised
  /// `stop` flag throws Interrupted.
  void run(const std::function<void(const Progress&)>& on_progress = {},
           std::uint64_t progress_every = 200000, const std::atomic<bool>* stop = nullptr);

  /// Streams the power series to `sink` (which must outlive run()); call before run().
  void attach(PowerSink* sink);
  /// Hands every finished job to `sink` in job order and drops it (which must outlive run()); call before
  /// run(). jobs() then holds the jobs not yet handed over.
  void stream_jobs(JobSink* sink) noexcept { job_sink_ = sink; }
  /// Calls `observer(t0, t1, it_W)` for every span of constant IT power (exact carbon and cost integrals).
  void observe_power(std::function<void(Time, Time, double)> observer) {
    site_.ledger().add_segment_observer(std::move(observer));
  }
  /// The scheduler's own figures of the run.
  [[nodiscard]] std::vector<std::pair<std::string, double>> scheduler_metrics() const {
    return scheduler_->metrics();
  }

  /// What service s (setup().services order) drew; valid after run().
  [[nodiscard]] ServiceOutcome service_outcome(std::size_t s) const;
  /// The jobs held, in job order: job first_job() + k is jobs()[k]. Every job drawn so far (all of a list,
  /// once constructed), less those a job sink took.
  [[nodiscard]] const std::deque<Job>& jobs() const noexcept { return jobs_; }
  [[nodiscard]] JobIndex first_job() const noexcept { return first_job_; }
  /// Whether job j is held (drawn and not yet handed to a job sink).
  [[nodiscard]] bool holds(JobIndex j) const noexcept {
    return j >= first_job_ && j - first_job_ < jobs_.size();
  }
  /// Job j; throws std::out_of_range unless it is held.
  [[nodiscard]] const Job& job(JobIndex j) const;
  [[nodiscard]] const Cluster& cluster() const noexcept { return cluster_; }
  [[nodiscard]] const PowerLedger& ledger() const noexcept { return site_.ledger(); }
  [[nodiscard]] const EngineSetup& setup() const noexcept { return setup_; }
  /// The fleet's node groups and GPU types.
  [[nodiscard]] const FleetLayout& layout() const noexcept { return layout_; }
  /// The network model, when the scenario has a topology.
  [[nodiscard]] const NetworkModel* network() const noexcept { return network_.get(); }
  [[nodiscard]] EventQueue& queue() noexcept { return queue_; }
  /// Totals; valid after run().
  [[nodiscard]] const RunSummary& summary() const noexcept { return summary_; }
  /// Interrupts job j at t if it is then running an epoch (not paused, not restarting), as a failure would,
  /// without consuming its random stream: a scripted interruption (tests, what-if studies). Needs [failures]
  /// enabled (rate 0 gives scripted interruptions alone); call before run().
  void interrupt_at(JobIndex j, Time t);

 private:
  class Context;  ///< what a scheduling policy sees (engine_context.hpp)
  class Runtime;  ///< what the controls and failures see: a JobRuntime (engine_context.hpp)
  void arrive(JobIndex j);
  // Job intake (engine_intake.cpp).
  /// Draws the next job from the source, predicts it and holds it; false when the source is exhausted.
  bool draw_job();
  /// Gives the job the plan, epochs and dataset size of one GPU type's run, and decides its steps.
  void take_run(Job& job, const TypedRun& run) const;
  /// Schedules the arrival of the next job not yet scheduled (drawing it), if it arrives before the horizon.
  void schedule_next_arrival();
  /// Hands the leading finished jobs to the job sink and drops them.
  void drop_finished();
  /// Adds a job's figures that the summary sums over all jobs (in job order, as they are dropped or at the
  /// horizon).
  void account_job(Job& job);
  /// Job j, which must be held; held_job checks (a policy's request may name any index).
  [[nodiscard]] Job& held_job(JobIndex j) { return const_cast<Job&>(job(j)); }
  [[nodiscard]] Job& job_at(JobIndex j) { return jobs_[j - first_job_]; }
  [[nodiscard]] const Job& job_at(JobIndex j) const { return jobs_[j - first_job_]; }
  /// Job j's run on GPU type t (several types).
  [[nodiscard]] const TypedRun& typed_run(JobIndex j, std::size_t t) const {
    return typed_[static_cast<std::size_t>(j - first_job_) * layout_.types().size() + t];
  }
  [[nodiscard]] bool runs_on(JobIndex j, std::size_t t) const {
    return runs_on_.empty() ||
           runs_on_[static_cast<std::size_t>(j - first_job_) * layout_.types().size() + t] != 0;
  }
  void request_schedule();
  void schedule_pass();
  void start_job(JobIndex j, Placement gpus);
  void enter_peak(JobIndex j);
  // Step-level jobs (engine_steps.cpp): which run so, their start-up, and each peak phase drawn segment by
  // segment, stage by stage.
  /// Decides whether the job (its plan just taken) runs step by step and, if so, makes its epochs its
  /// checkpoint intervals.
  void plan_steps(Job& job) const;
  void enter_startup(JobIndex j);
  void end_startup(JobIndex j);
  /// Sizes the job's current peak phase (its steps until the next checkpoint) and its step shape.
  void size_step_phase(Job& job);
  /// What the job's GPUs draw now in its current phase (a step-level peak: its segments from where it is).
  void draw_phase(JobIndex j);
  /// Draws the segments at the step position reached and schedules the next boundary.
  void step_segment(JobIndex j);
  /// Stops a step-level peak's segment clock (a pause, cap change, the phase's end); true if it ran.
  bool hold_steps(JobIndex j);
  void enter_valley(JobIndex j);
  void end_epoch(JobIndex j);
  // Checkpoints (engine_checkpoints.cpp).
  /// Starts the checkpoint of the valley just entered; returns the valley's length (the plan's, or as the
  /// fabric or an asynchronous write makes it).
  [[nodiscard]] Duration begin_checkpoint(JobIndex j);
  /// At the valley's end: the fabric's write ends, or an asynchronous one starts beside the next steps.
  void end_checkpoint(JobIndex j);
  /// An asynchronous checkpoint's write, beside the next steps: on the fabric with a topology (at the
  /// shares of its start), else the plan's write time.
  void begin_background_write(JobIndex j);
  void end_background_write(JobIndex j);
  /// A checkpoint write begins: its seconds on the fabric at the current shares, else the plan's write time.
  [[nodiscard]] double begin_checkpoint_write(const Job& job);
  /// The fabric's write ends (nothing without a network).
  void end_checkpoint_write(const Job& job);
  void finish_job(JobIndex j);
  void schedule_phase_end(JobIndex j);
  void stop_job(JobIndex j);
  // The window's edges (engine_window.cpp).
  void close_at_horizon();
  /// At the first instant of the window [0, horizon): what the warm-up left (occupancy, the network's draw).
  void open_window();
  /// Placement of job j within one node group of a GPU type it can run on (groups tried in order), in
  /// global GPU indices.
  [[nodiscard]] std::optional<Placement> place_in_group(JobIndex j) const;
  /// Applies `change` to the network model, which must exist (a job started, finished, paused or resumed,
  /// a checkpoint begun or ended), gives the site the network's draw after it, and returns what `change`
  /// returns.
  template <class Change>
  decltype(auto) change_network(Change&& change) {
    if constexpr (std::is_void_v<std::invoke_result_t<Change, NetworkModel&>>) {
      change(*network_);
      network_changed();
    } else {
      auto result = change(*network_);
      network_changed();
      return result;
    }
  }
  /// Gives the site the network's draw as it stands.
  void network_changed();
  // Services (engine_services.cpp).
  /// Reserves each service's GPUs and schedules its first draw at time zero.
  void start_services();
  /// Service s's GPUs draw interval k's power (after_W past the series) and the next change is scheduled.
  void step_service(std::size_t s, std::size_t k);
  /// Absorbing: service s's controller acts now.
  void control_service(std::size_t s);
  /// Absorbing: the controller's periodic action, scheduled again a control period on.
  void tick_service(std::size_t s);
  /// Absorbing: the other GPUs' draw changed; each absorbing service acts after its reaction time.
  void other_gpus_changed();
  /// Integrates service s's draw up to now (its interval energies, its plan's bank and lag).
  void account_service(std::size_t s, Time now);
  /// Service s's GPUs draw the plan plus the controller's offset, within their bounds.
  void apply_service_power(std::size_t s);

  EngineSetup setup_;
  FleetLayout layout_;
  /// The jobs held: job first_job_ + k is jobs_[k] (a deque: references stay valid as jobs are added at the
  /// back and dropped at the front).
  std::deque<Job> jobs_;
  JobIndex first_job_ = 0;
  std::unique_ptr<jobs::JobSource> source_;  ///< null once exhausted
  JobIndex drawn_ = 0;                       ///< jobs drawn from the source
  JobIndex next_arrival_ = 0;                ///< the first job whose arrival is not yet scheduled
  bool arrivals_done_ = false;               ///< a job at or after the horizon was reached
  JobSink* job_sink_ = nullptr;
  bool smoothing_any_ = false;  ///< [smoothing] on, or some job smooths itself
  std::uint64_t jobs_total_ = 0, jobs_arrived_ = 0;
  const models::PowerPredictor& predictor_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::unique_ptr<Context> context_;
  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<Controls> controls_;
  std::unique_ptr<Failures> failures_;  ///< null unless [failures] is enabled
  EventQueue queue_;
  Cluster cluster_;
  GroupViews groups_;  ///< node groups' own views of cluster_ (several groups)
  PowerSite site_;     ///< the power ledger and its observers: cooling, grid meter, batteries
  JobMeter meter_;     ///< every change of a job's draw, and its energy
  /// Several GPU types: each held job's run on each type, [(job - first_job_) * types + type].
  std::deque<TypedRun> typed_;
  /// Several GPU types: whether held job j can run on type t (as typed_); the predictor refuses a job on a
  /// type it cannot run on (a model that does not fit the GPU's memory, ...).
  std::deque<std::uint8_t> runs_on_;
  std::vector<JobIndex> waiting_;  ///< queued jobs in arrival order
  std::vector<JobIndex> running_;  ///< running jobs in start order
  std::vector<NodePower> node_power_;
  bool schedule_pending_ = false;
  bool window_open_ = false;
  std::uint64_t finished_ = 0;
  double gpu_seconds_ = 0.0;
  RunSummary summary_;
  std::unique_ptr<NetworkModel> network_;  ///< null without a [topology]
  /// A service's GPUs, their servers and what each draws now; its plan, the controller's state and what
  /// it drew interval by interval.
  struct ServiceGpus {
    std::vector<GpuIndex> gpus;
    std::vector<NodeRun> runs;
    double W = 0.0;                 ///< each GPU now
    double planned_W = 0.0;         ///< each GPU's plan now
    double lo_W = 0.0, hi_W = 0.0;  ///< each GPU's bounds in this interval
    double offset_W = 0.0;          ///< the controller's offset per GPU
    double other_mean_W = -1.0;     ///< the other GPUs' average (negative: not yet seen)
    double other_W = 0.0;           ///< the other GPUs' draw as last seen (held since last_control)
    bool reaction_pending = false;
    double bank_J = 0.0;  ///< work run ahead (+) or behind (-) the plan, J
    double lag_s_integral = 0.0, max_lag_s = 0.0;
    Time last = Time::zero();  ///< integrated up to here
    Time last_control = Time::zero();
    std::vector<double> interval_J;      ///< over [0, horizon)
    std::vector<double> interval_lag_s;  ///< absorbing: the lag's integral over each interval (s x s)
  };
  std::vector<ServiceGpus> services_;  ///< as setup_.services
  bool changing_service_ = false;      ///< a service's own change: not the other GPUs'
};

}  // namespace fleetwatt::sim
