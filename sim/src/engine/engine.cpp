// The event loop of one run and the job state machine: scheduling passes, starts, epoch phases (peak, then
// valley), run-time limits and completions. Intake, checkpoints, steps, controls, failures and the window's
// edges live in engine_*.cpp beside it.
#include "fleetwatt/sim/engine/engine.hpp"

#include "engine_context.hpp"
#include "engine_controls.hpp"
#include "engine_failures.hpp"
#include "engine_wiring.hpp"
#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/sim/fleet/network_model.hpp"
#include "fleetwatt/sim/policies/topology_placement.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cmath>

namespace fleetwatt::sim {

Engine::Engine(EngineSetup setup, std::vector<jobs::JobSpec> specs, const models::PowerPredictor& predictor,
               std::unique_ptr<Scheduler> scheduler, std::unique_ptr<PlacementPolicy> placement)
    : Engine(std::move(setup), std::make_unique<jobs::JobList>(std::move(specs)), predictor,
             std::move(scheduler), std::move(placement)) {}

Engine::Engine(EngineSetup setup, std::unique_ptr<jobs::JobSource> source,
               const models::PowerPredictor& predictor, std::unique_ptr<Scheduler> scheduler,
               std::unique_ptr<PlacementPolicy> placement)
    : setup_(std::move(setup)),
      layout_(fleet_groups(setup_)),
      source_(std::move(source)),
      predictor_(predictor),
      scheduler_(std::move(scheduler)),
      placement_(std::move(placement)),
      context_(std::make_unique<Context>(*this)),
      runtime_(std::make_unique<Runtime>(*this)),
      queue_(Time::from_ns(-setup_.warmup.ns())),
      cluster_(layout_.blocks()),
      groups_(layout_, cluster_),
      site_(facility_model(setup_, layout_), ledger_config(setup_, layout_), grid_meter_config(setup_),
            battery_bank_config(setup_), outage_meter_config(setup_)),
      meter_(site_.ledger()) {
  const auto& groups = layout_.groups();
  if (groups.size() > 1) {
    if (setup_.topology && !cluster_.uniform())
      throw jobs::ConfigError(
          {}, "topology", "a [topology] needs nodes of one size; these node groups differ in GPUs per node");
  }
  // [smoothing]: on when the table or some job asks for it (the job table's column is decided here).
  smoothing_any_ = setup_.smoothing.mode != SmoothingMode::off || source_->any_job_smoothing();
  // A list in memory is predicted whole, up front: a bad job fails here, before anything is written. A
  // stream is drawn as its arrivals come.
  if (source_->in_memory())
    while (draw_job()) {
    }
  if (groups.size() > 1)
    for (std::uint32_t g = 0; g < groups.size(); ++g) summary_.fleet_groups.push_back(layout_.describe(g));
  node_power_.assign(setup_.nodes, NodePower::on);
  if (setup_.failures.enabled) failures_ = std::make_unique<Failures>(*runtime_, setup_.failures);
  // A grid outage that outlasts the UPS leaves the fleet without power when the UPS runs out.
  for (const auto& o : setup_.ride_through.outages)
    if (o.back_s > o.ups_until_s && o.ups_until_s < setup_.horizon.seconds()) {
      FLEETWATT_ASSERT(failures_, "a grid outage beyond the UPS's autonomy needs the failures' restarts");
      failures_->interrupt_running_at(Time::from_seconds(o.ups_until_s), summary_.grid_interruptions);
    }
  controls_ = std::make_unique<Controls>(
      *runtime_, failures_.get(),
      FleetNodes{cluster_, groups_, site_.ledger(), layout_, node_power_, [this] { request_schedule(); }});
  // One arrival is pending at a time, each scheduling the next: memory does not grow with the horizon's
  // arrivals. Arrivals have a priority of their own (engine_controls.hpp), so at one instant they still run
  // in job order and before a policy's wake-ups, as when every arrival was scheduled up front.
  schedule_next_arrival();
  start_services();
  // Network: build the interconnect, give rack-aware placement its racks, draw idle network power.
  if (setup_.topology) {
    network_ = std::make_unique<NetworkModel>(*setup_.topology, cluster_.nodes(), cluster_.gpus_per_node(),
                                              groups.front().gpu.idle_W);
    if (auto* rack_aware = dynamic_cast<RackAwarePlacement*>(placement_.get()))
      rack_aware->set_racks(network_->racks());
    site_.set_network_W(queue_.now(), network_->power_W());
  }
}

Engine::~Engine() = default;

void Engine::attach(PowerSink* sink) {
  site_.attach(sink);
  // With a warm-up, the network's draw is sent when the window opens.
  if (queue_.now() >= Time::zero()) site_.send_network_W(queue_.now());
}

void Engine::network_changed() {
  site_.set_network_W(queue_.now(), network_->power_W());
}

void Engine::request_schedule() {
  if (schedule_pending_) return;
  schedule_pending_ = true;
  queue_.schedule_at(
      queue_.now(), [this] { schedule_pass(); }, kSchedulePriority);
}

void Engine::schedule_pass() {
  schedule_pending_ = false;
  // Power-aware policies act on an empty queue too (idle nodes sleep, demand-response events begin).
  scheduler_->schedule(*context_);
}

void Engine::start_job(JobIndex j, Placement gpus) {
  FLEETWATT_ASSERT(holds(j), fmt::format("scheduler started job index {}, which is not held", j));
  Job& job = job_at(j);
  FLEETWATT_ASSERT(job.state == JobState::queued,
                   fmt::format("scheduler started job {} which is {}", job.spec.id, to_string(job.state)));
  FLEETWATT_ASSERT(gpus.size() == job.spec.n_gpus, fmt::format("job {} needs {} GPUs, placed on {}",
                                                               job.spec.id, job.spec.n_gpus, gpus.size()));
  std::sort(gpus.begin(), gpus.end());
  FLEETWATT_ASSERT(!gpus.empty(), fmt::format("job {} placed on no GPU", job.spec.id));
  const std::uint32_t group = layout_.group_of_node(cluster_.node_of(gpus.front()));
  FLEETWATT_ASSERT(layout_.group_of_node(cluster_.node_of(gpus.back())) == group,
                   fmt::format("job {} placed across node groups", job.spec.id));
  groups_.allocate(j, gpus);
  waiting_.erase(std::find(waiting_.begin(), waiting_.end(), j));
  job.gpus = std::move(gpus);
  job.gpu_type.group = group;
  job.gpu_type.preset = layout_.groups()[group].gpu.id;
  job.gpu_type.idle_W = layout_.groups()[group].gpu.idle_W;
  job.gpu_type.tdp_W = layout_.groups()[group].gpu.tdp_W;
  // New GPUs, idle: their servers are cut once; the stages' draws and GPU lists are rebuilt on the first
  // step.
  meter_.place(job);
  job.smoothing = PowerSmoothing::of(setup_.smoothing, job.spec.smoothing, job.gpu_type.tdp_W);
  if (!typed_.empty()) {
    // Its phases, epochs and dataset on the type it got (matched again to a recorded run time).
    take_run(job, typed_run(j, layout_.type_of_group(group)));
  }
  job.state = JobState::running;
  job.start = queue_.now();
  if (network_) change_network([&](NetworkModel& n) { n.job_started(job); });
  running_.push_back(j);
  // A recorded run time shorter than the predicted one (failed, cancelled jobs) stops the job mid-epoch.
  if (job.spec.limit_s) {
    const Duration limit = Duration::from_seconds(*job.spec.limit_s);
    if (limit < job.predicted_runtime()) {
      job.controls.stop_at = job.start + limit;
      job.controls.stop_event = queue_.schedule_at(
          job.controls.stop_at, [this, j] { stop_job(j); }, kPhasePriority);
    }
  }
  if (failures_) failures_->job_started(j);
  if (job.stepped && job.startup > Duration::zero())
    enter_startup(j);
  else
    enter_peak(j);
}

void Engine::schedule_phase_end(JobIndex j) {
  Job& job = job_at(j);
  if (job.phase == JobPhase::restart)
    failures_->schedule_restart_step(j);
  else if (job.phase == JobPhase::startup)
    job.next_event = queue_.schedule_at(
        job.phase_end, [this, j] { end_startup(j); }, kPhasePriority);
  else if (job.phase == JobPhase::peak)
    job.next_event = queue_.schedule_at(
        job.phase_end, [this, j] { enter_valley(j); }, kPhasePriority);
  else
    job.next_event = queue_.schedule_at(
        job.phase_end, [this, j] { end_epoch(j); }, kPhasePriority);
}

void Engine::enter_peak(JobIndex j) {
  Job& job = job_at(j);
  if (failures_) failures_->epoch_begun(j);
  job.phase = JobPhase::peak;
  job.phase_start = queue_.now();
  if (network_) {
    // This epoch's peak: the plan's compute + communication and I/O re-timed at the current shares.
    job.epoch.set_parts(network_->next_epoch(job));
    job.epoch.peak = Duration::from_seconds(job.epoch.parts().duration_s());
  }
  if (job.stepped) size_step_phase(job);  // the steps to the next checkpoint
  draw_phase(j);
  job.phase_end = queue_.now() + phase_length(job, JobPhase::peak);
  job.next_event = queue_.schedule_at(
      job.phase_end, [this, j] { enter_valley(j); }, kPhasePriority);
}

void Engine::enter_valley(JobIndex j) {
  Job& job = job_at(j);
  hold_steps(j);
  meter_.settle(job_at(j), queue_.now());
  meter_.close_peak(job);
  job.phase = JobPhase::valley;
  job.phase_start = queue_.now();
  job.epoch.valley = begin_checkpoint(j);
  draw_phase(j);  // [smoothing]: the checkpoint raised to the floor
  job.phase_end = queue_.now() + phase_length(job, JobPhase::valley);
  job.next_event = queue_.schedule_at(
      job.phase_end, [this, j] { end_epoch(j); }, kPhasePriority);
}

void Engine::end_epoch(JobIndex j) {
  Job& job = job_at(j);
  meter_.settle(job_at(j), queue_.now());
  end_checkpoint(j);
  if (++job.epochs_done >= job.spec.epochs) {
    finish_job(j);
  } else {
    enter_peak(j);
  }
}

void Engine::stop_job(JobIndex j) {
  Job& job = job_at(j);
  job.controls.stop_event = 0;
  if (job.state != JobState::running) return;
  meter_.settle(job_at(j), queue_.now());
  if (job.phase == JobPhase::peak) meter_.close_peak(job);
  if (job.next_event) queue_.cancel(job.next_event);
  hold_steps(j);
  finish_job(j);
}

void Engine::interrupt_at(JobIndex j, Time t) {
  FLEETWATT_ASSERT(failures_, "interrupt_at needs [failures] enabled");
  while (j >= drawn_ && draw_job()) {
  }
  if (!holds(j)) throw std::out_of_range("interrupt_at: no such job");
  failures_->interrupt_at(j, t);
}

std::optional<Placement> Engine::place_in_group(JobIndex j) const {
  // The first group, in scenario order, of a type the job can run on where the placement policy finds
  // room: one GPU type per job.
  return groups_.place(*placement_, job_at(j).spec.n_gpus,
                       [&](std::uint32_t type) { return runs_on(j, type); });
}

void Engine::finish_job(JobIndex j) {
  Job& job = job_at(j);
  if (failures_) failures_->job_ended(j);
  if (job.controls.stop_event) queue_.cancel(job.controls.stop_event);
  job.controls.stop_event = 0;
  running_.erase(std::find(running_.begin(), running_.end(), j));
  // A background checkpoint write still going ends with the job (its GPUs are released).
  end_background_write(j);
  meter_.draw(job, queue_.now(), job.gpu_type.idle_W);
  if (network_) change_network([&](NetworkModel& n) { n.job_finished(job); });
  groups_.release(j, job.gpus);
  job.state = JobState::finished;
  job.phase = JobPhase::none;
  job.end = queue_.now();
  job.next_event = 0;
  gpu_seconds_ += static_cast<double>(job.gpus.size()) * window_seconds(job.start, job.end);
  if (job.end >= Time::zero()) ++finished_;
  request_schedule();
}

void Engine::run(const std::function<void(const Progress&)>& on_progress, std::uint64_t progress_every,
                 const std::atomic<bool>* stop) {
  const auto wall_start = std::chrono::steady_clock::now();
  const Time h = setup_.horizon;
  const Time start = queue_.now();
  std::uint64_t since_report = 0;
  for (;;) {
    auto next = queue_.next_time();
    if (!window_open_ && (!next || *next >= Time::zero())) open_window();
    if (!next || *next >= h) break;
    queue_.step();
    if (job_sink_) drop_finished();
    if (stop && stop->load(std::memory_order_relaxed)) throw Interrupted();
    if (on_progress && ++since_report >= progress_every) {
      since_report = 0;
      on_progress({queue_.now(), h, finished_, drawn_, queue_.events_run(), start});
    }
  }
  queue_.run_until(h);
  close_at_horizon();
  summary_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (on_progress) on_progress({h, h, finished_, drawn_, queue_.events_run(), start});
}

}  // namespace fleetwatt::sim
