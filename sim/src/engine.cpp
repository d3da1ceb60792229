// The event loop of one run: arrivals, scheduling passes, epoch phases, completions, and the horizon.
#include "fleetwatt/sim/engine.hpp"

#include "engine_controls.hpp"
#include "engine_failures.hpp"
#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/models/clock_model.hpp"
#include "fleetwatt/sim/network_model.hpp"
#include "fleetwatt/sim/topology_placement.hpp"
#include "job_intake.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cmath>

namespace fleetwatt::sim {

class Engine::Context final : public SchedulerContext {
 public:
  explicit Context(Engine& e) : e_(e) {}
  Time now() const override { return e_.queue_.now(); }
  std::span<const JobIndex> queue() const override { return e_.waiting_; }
  const Job& job(JobIndex j) const override { return e_.job(j); }
  const Cluster& cluster() const override { return e_.cluster_; }
  std::optional<Placement> place(JobIndex j) const override {
    if (e_.groups_.several()) return e_.place_in_group(j);
    return e_.placement_->place(e_.cluster_, e_.job(j).spec.n_gpus);
  }
  void start(JobIndex j, Placement gpus) override { e_.start_job(j, std::move(gpus)); }
  void wake_at(Time t) override {
    e_.queue_.schedule_at(
        std::max(t, now()), [this] { e_.request_schedule(); }, kWakePriority);
  }
  FleetPower fleet_power() const override {
    // Several groups: per-GPU figures are the reference (first) group's; the fleet's idle is exact.
    const auto& ref = e_.layout_.groups().front();
    FleetPower fp{ref.gpu.idle_W, ref.gpu.tdp_W, ref.node_base_W, e_.setup_.pue, std::nullopt};
    if (e_.layout_.groups().size() > 1) fp.idle_it_W = e_.layout_.idle_it_W();
    if (e_.network_) fp.network_W = e_.network_->power_W();
    return fp;
  }
  std::span<const JobIndex> running() const override { return e_.running_; }
  double facility_power_W() const override { return e_.ledger_.facility_power_W(); }
  // Every control a policy has goes through the one controls object (engine_controls.cpp).
  void pause(JobIndex j) override { e_.controls_->pause(j); }
  void resume(JobIndex j) override { e_.controls_->resume(j); }
  void set_power_cap(JobIndex j, double cap_W) override { e_.controls_->set_power_cap(j, cap_W); }
  NodePower node_power(NodeIndex n) const override { return e_.node_power_.at(n); }
  void sleep_node(NodeIndex n, double sleep_W) override { e_.controls_->sleep_node(n, sleep_W); }
  void wake_node(NodeIndex n, Duration latency, double wake_energy_J) override {
    e_.controls_->wake_node(n, latency, wake_energy_J);
  }

 private:
  Engine& e_;
};

std::vector<FleetGroup> fleet_groups(const EngineSetup& setup) {
  if (!setup.groups.empty()) return setup.groups;
  return {FleetGroup{setup.gpu.id, setup.nodes, setup.gpus_per_node, setup.gpu, setup.node_base_W}};
}

namespace {
/// The job's plan, epochs and dataset size as one GPU type runs it.
void take_run(Job& job, const TypedRun& r) {
  job.plan = r.plan;
  job.profile = r.plan.profile();
  job.split = PeakSplit::of(r.plan);
  job.spec.epochs = r.epochs;
  job.spec.meta.dataset_samples = r.dataset_samples;
  job.peak = Duration::from_seconds(job.profile.peak_s);
  job.valley = Duration::from_seconds(job.profile.valley_s);
}

// The weather-driven facility model of a setup, sized to the fleet's peak IT power unless the scenario
// gives design_it_kw; null for constant cooling.
std::unique_ptr<FacilityModel> facility_model(const EngineSetup& s, const FleetLayout& layout) {
  if (!s.cooling) return nullptr;
  CoolingDesign d = *s.cooling;
  if (!(d.design_it_W > 0.0))
    for (const auto& g : layout.groups())
      d.design_it_W += g.nodes * (g.gpus_per_node * g.gpu.tdp_W + g.node_base_W);
  return std::make_unique<FacilityModel>(d, *s.weather);
}

LedgerConfig ledger_config(const EngineSetup& s, const FleetLayout& layout, const FacilityModel* facility) {
  LedgerConfig c;
  c.facility = facility;
  c.nodes = s.nodes;
  c.gpus_per_node = s.gpus_per_node;
  c.gpu_idle_W = s.gpu.idle_W;
  c.node_base_W = s.node_base_W;
  c.node_load_fraction = s.node_load_fraction;
  c.pue = s.pue;
  c.start = Time::from_ns(-s.warmup.ns());
  c.facility_interval = s.facility_interval;
  c.node_interval = s.node_interval;
  if (!s.groups.empty()) c.groups = layout.ledger_groups();
  return c;
}
}  // namespace

Engine::Engine(EngineSetup setup, std::vector<workloads::JobSpec> specs,
               const models::PowerPredictor& predictor, std::unique_ptr<Scheduler> scheduler,
               std::unique_ptr<PlacementPolicy> placement)
    : Engine(std::move(setup), std::make_unique<workloads::JobList>(std::move(specs)), predictor,
             std::move(scheduler), std::move(placement)) {}

Engine::Engine(EngineSetup setup, std::unique_ptr<workloads::JobSource> source,
               const models::PowerPredictor& predictor, std::unique_ptr<Scheduler> scheduler,
               std::unique_ptr<PlacementPolicy> placement)
    : setup_(std::move(setup)),
      layout_(fleet_groups(setup_)),
      source_(std::move(source)),
      predictor_(predictor),
      scheduler_(std::move(scheduler)),
      placement_(std::move(placement)),
      context_(std::make_unique<Context>(*this)),
      controls_(std::make_unique<Controls>(*this)),
      queue_(Time::from_ns(-setup_.warmup.ns())),
      cluster_(layout_.blocks()),
      groups_(layout_, cluster_),
      facility_(facility_model(setup_, layout_)),
      ledger_(ledger_config(setup_, layout_, facility_.get())),
      meter_(ledger_) {
  const auto& groups = layout_.groups();
  if (groups.size() > 1) {
    if (setup_.topology && !cluster_.uniform())
      throw workloads::ConfigError(
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
  // Carbon and cost: exact integrals of facility power (IT x PUE) against the grid signals, per facility
  // interval (the /facility series) and in total.
  grid_ = std::make_unique<GridMeter>(
      GridMeterConfig{setup_.facility_interval, setup_.pue, setup_.carbon_signal.get(),
                      setup_.carbon_kg_per_J, setup_.price_signal.get(), facility_.get()},
      [this](Time start, double carbon_kg, double cost) {
        if (bank_)
          bank_->grid_sample(start, carbon_kg, cost);
        else if (sink_)
          sink_->grid_sample(start, carbon_kg, cost);
      });
  if (!setup_.batteries.empty()) {
    bank_ = std::make_unique<BatteryBank>(
        BatteryBankConfig{setup_.batteries, setup_.import_limit_W, setup_.facility_interval, setup_.horizon,
                          setup_.carbon_signal.get(), setup_.carbon_kg_per_J, setup_.price_signal.get()});
    ledger_.attach(bank_.get());  // runs without a result sink still see the batteries
  }
  ledger_.add_segment_observer([this](Time t0, Time t1, double it_W) { grid_->add(t0, t1, it_W); });
  if (setup_.failures.enabled) failures_ = std::make_unique<Failures>(*this, setup_.failures);
  // One arrival is pending at a time, each scheduling the next: memory does not grow with the horizon's
  // arrivals. Arrivals have a priority of their own (engine_controls.hpp), so at one instant they still run
  // in job order and before a policy's wake-ups, as when every arrival was scheduled up front.
  schedule_next_arrival();
  // Network: build the interconnect, give rack-aware placement its racks, draw idle network power.
  if (setup_.topology) {
    network_ = std::make_unique<NetworkModel>(*setup_.topology, cluster_.nodes(), cluster_.gpus_per_node(),
                                              groups.front().gpu.idle_W);
    if (auto* rack_aware = dynamic_cast<RackAwarePlacement*>(placement_.get()))
      rack_aware->set_racks(network_->racks());
    ledger_.add_other_it_power(queue_.now(), network_->power_W());
  }
}

bool Engine::draw_job() {
  if (!source_) return false;
  std::optional<workloads::JobSpec> next = source_->next();
  if (!next) {
    source_.reset();
    return false;
  }
  workloads::JobSpec& spec = *next;
  const auto& groups = layout_.groups();
  const auto& types = layout_.types();
  check_job_size(spec, cluster_.gpus(), layout_.largest_group_gpus());
  Job job;
  TypedRun run;  // what it starts as
  if (types.size() == 1) {
    run = {plan_job(spec, types.front(), predictor_), spec.epochs, spec.meta.dataset_samples};
    if (check_plan(spec, run.plan, types.front(), predictor_.name())) ++summary_.capped_predictions;
  } else {
    // Every type's run up front, so a bad job fails here, before anything is written. A type the
    // predictor refuses the job on is left out for it; a job no type (with a group large enough) can
    // run is refused.
    std::optional<workloads::ConfigError> first_error;
    std::uint32_t largest = 0;
    bool any = false;
    for (std::uint32_t t = 0; t < types.size(); ++t) {
      const auto& gpu = types[t];
      bool ok = true;
      try {
        typed_.push_back(run_on_type(spec, gpu, predictor_));
        if (check_plan(spec, typed_.back().plan, gpu, predictor_.name())) ++summary_.capped_predictions;
      } catch (const workloads::ConfigError& e) {
        if (!first_error) first_error = e;
        if (typed_.size() < jobs_.size() * types.size() + t + 1) typed_.emplace_back();
        ok = false;
      }
      runs_on_.push_back(ok ? 1 : 0);
      if (!ok) continue;
      const auto r = typed_.back().plan.profile();
      job.queued_peak_W = std::max(job.queued_peak_W, std::max(r.peak_W, r.valley_W));
      job.queued_idle_W = any ? std::min(job.queued_idle_W, gpu.idle_W) : gpu.idle_W;
      any = true;
      for (std::uint32_t g = 0; g < groups.size(); ++g)
        if (layout_.type_of_group(g) == t) largest = std::max(largest, layout_.gpus(g));
    }
    if (!any) throw *first_error;
    if (spec.n_gpus > largest)
      throw workloads::ConfigError(
          spec.class_origin, "n_gpus",
          fmt::format("job {} asks for {} GPUs; the largest node group of a GPU type it can run on has {}",
                      spec.id, spec.n_gpus, largest));
    // Until it starts: the reference type's run, or the first type it can run on.
    std::size_t first = typed_.size() - types.size();
    while (!runs_on_[first]) ++first;
    run = typed_[first];
  }
  job.submit = Time::from_seconds(spec.submit_s);
  job.spec = std::move(spec);
  take_run(job, run);
  plan_steps(job);
  job.gpu_tdp_W = groups.front().gpu.tdp_W;  // until it starts on a type of its own
  job.smoothing_on = smoothing_any_;
  job.failures_on = setup_.failures.enabled;
  if (job.submit >= Time::zero()) {
    ++jobs_total_;
    if (job.submit < setup_.horizon) ++jobs_arrived_;
  }
  jobs_.push_back(std::move(job));
  ++drawn_;
  return true;
}

void Engine::schedule_next_arrival() {
  if (arrivals_done_) return;
  if (next_arrival_ == drawn_ && !draw_job()) {
    arrivals_done_ = true;
    return;
  }
  const JobIndex j = next_arrival_;
  // Jobs come in submit order: once one arrives at or after the horizon, so do all after it.
  if (job_at(j).submit >= setup_.horizon) {
    arrivals_done_ = true;
    return;
  }
  ++next_arrival_;
  queue_.schedule_at(
      job_at(j).submit, [this, j] { arrive(j); }, kArrivalPriority);
}

const Job& Engine::job(JobIndex j) const {
  if (!holds(j)) throw std::out_of_range(fmt::format("job {} is not held by the engine", j));
  return job_at(j);
}

void Engine::drop_finished() {
  while (!jobs_.empty() && first_job_ < next_arrival_ && jobs_.front().state == JobState::finished) {
    Job& job = jobs_.front();
    account_job(job);
    job_sink_->job_done(first_job_, job);
    jobs_.pop_front();
    if (!typed_.empty()) {
      const std::size_t types = layout_.types().size();
      typed_.erase(typed_.begin(), typed_.begin() + static_cast<std::ptrdiff_t>(types));
      runs_on_.erase(runs_on_.begin(), runs_on_.begin() + static_cast<std::ptrdiff_t>(types));
    }
    ++first_job_;
  }
}

void Engine::account_job(Job& job) {
  if (failures_) failures_->account(job);
  if (smoothing_any_) summary_.smoothing_energy_J += job.smoothing_J;
}

Engine::~Engine() = default;

void Engine::attach(PowerSink* sink) {
  if (bank_) {
    bank_->set_downstream(sink);
    ledger_.attach(bank_.get());
  } else {
    ledger_.attach(sink);
  }
  sink_ = sink;
  // With a warm-up, the network's draw is sent when the window opens.
  if (network_ && sink_ && queue_.now() >= Time::zero())
    sink_->network_change(queue_.now(), network_->power_W());
}

void Engine::open_window() {
  window_open_ = true;
  std::uint64_t allocated = 0;
  for (const JobIndex j : running_) allocated += job_at(j).gpus.size();
  summary_.occupancy_at_start = static_cast<double>(allocated) / static_cast<double>(cluster_.gpus());
  summary_.jobs_at_start = running_.size() + waiting_.size();
  if (network_ && sink_ && setup_.warmup > Duration::zero())
    sink_->network_change(Time::zero(), network_->power_W());
}

void Engine::network_changed(double before_W) {
  const double after = network_->power_W();
  if (after == before_W) return;
  ledger_.add_other_it_power(queue_.now(), after - before_W);
  if (sink_ && queue_.now() >= Time::zero()) sink_->network_change(queue_.now(), after);
}

void Engine::arrive(JobIndex j) {
  job_at(j).state = JobState::queued;
  waiting_.push_back(j);
  schedule_next_arrival();
  request_schedule();
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
  // New GPUs: the stages' draws and their GPU lists are rebuilt on the first step.
  job.wave.stage_W.clear();
  job.wave.stage_gpus.clear();
  job.group = group;
  job.gpu = layout_.groups()[group].gpu.id;
  job.gpu_idle_W = layout_.groups()[group].gpu.idle_W;
  job.gpu_tdp_W = layout_.groups()[group].gpu.tdp_W;
  job.smoothing = PowerSmoothing::of(setup_.smoothing, job.spec.smoothing, job.gpu_tdp_W);
  if (!typed_.empty()) {
    // Its phases, epochs and dataset on the type it got (matched again to a recorded run time).
    take_run(job, typed_run(j, layout_.type_of_group(group)));
    plan_steps(job);
  }
  job.state = JobState::running;
  job.start = queue_.now();
  if (network_) {
    const double before = network_->power_W();
    network_->job_started(job);
    network_changed(before);
  }
  running_.push_back(j);
  // A recorded run time shorter than the predicted one (failed, cancelled jobs) stops the job mid-epoch.
  if (job.spec.limit_s) {
    const Duration limit = Duration::from_seconds(*job.spec.limit_s);
    if (limit < job.predicted_runtime()) {
      job.stop_at = job.start + limit;
      job.stop_event = queue_.schedule_at(
          job.stop_at, [this, j] { stop_job(j); }, kPhasePriority);
    }
  }
  if (failures_) failures_->job_started(j);
  if (job.stepped && job.startup > Duration::zero())
    enter_startup(j);
  else
    enter_peak(j);
}

double Engine::phase_power(const Job& job) const {
  return phase_power_at(job, job.phase);
}

double Engine::phase_power_at(const Job& job, JobPhase phase) const {
  // [failures]: idle through the restart delay; the reload that follows draws the checkpoint (valley) power.
  if (phase == JobPhase::restart && job.failures.stage == JobFailures::Stage::delay) return job.gpu_idle_W;
  // A step-level job's start-up (model load, warm-up) draws at its checkpoint level, near the floor.
  const double w = phase == JobPhase::peak ? job.profile.peak_W : job.profile.valley_W;
  return job.power_cap_W > 0.0 ? std::min(w, job.power_cap_W) : w;
}

double Engine::phase_stretch(const Job& job, JobPhase phase) const {
  if (phase == JobPhase::restart) return 1.0;  // restart times are fixed, caps or not
  // The one clock model (models/clock_model.hpp) says how much a cap stretches the phase; a step-level
  // peak runs at the pace of its compute, whose clocks the cap lowers (the waits follow the compute).
  const double w = phase != JobPhase::peak ? job.profile.valley_W
                   : job.stepped           ? job.wave.shape.compute_W
                                           : job.profile.peak_W;
  return models::clock_model().stretch(w, job.power_cap_W, job.gpu_tdp_W);
}

Duration Engine::phase_length(const Job& job, JobPhase phase) const {
  const Duration d = phase == JobPhase::peak      ? job.peak
                     : phase == JobPhase::startup ? job.startup
                                                  : job.valley;
  const double k = phase_stretch(job, phase);
  return k == 1.0 ? d : Duration::from_seconds(d.seconds() * k);
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
    job.split = network_->next_epoch(job);
    job.profile.peak_W = job.split.mean_W();
    job.profile.peak_s = job.split.duration_s();
    job.peak = Duration::from_seconds(job.split.duration_s());
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
  const auto& plan = job.plan;
  const bool last = job.epochs_done + 1 >= job.spec.epochs;
  if (plan.checkpoint_async) {
    // Asynchronous checkpoints: the GPUs wait for their copy to host memory (the plan's part), and for the
    // previous checkpoint's write if it is still going (torch and NeMo finish one before the next). The
    // last one's write ends the job: training finalises its checkpoint before it lets go of the GPUs.
    const double wait = job.write_end > queue_.now() ? (job.write_end - queue_.now()).seconds() : 0.0;
    double valley_s = std::max(plan[workloads::PartKind::checkpoint].s, wait);
    if (last) {
      end_background_write(j);
      double write_s = plan.checkpoint_write_s;
      if (network_) {
        const double before = network_->power_W();
        write_s = network_->begin_checkpoint(job);
        network_changed(before);
      }
      valley_s += write_s;
    }
    job.profile.valley_s = valley_s;
    job.valley = Duration::from_seconds(job.profile.valley_s);
  } else if (network_) {
    // The checkpoint write is the valley's duration floor; a plan that states its write keeps its fixed
    // work beside the write the fabric gives.
    const double before = network_->power_W();
    const double checkpoint_s = network_->begin_checkpoint(job);
    network_changed(before);
    const double part = plan[workloads::PartKind::checkpoint].s;
    job.profile.valley_s = plan.checkpoint_bytes > 0.0
                               ? plan.checkpoint_fixed_s() + std::max(plan.checkpoint_write_s, checkpoint_s)
                               : std::max(part, checkpoint_s);
    job.valley = Duration::from_seconds(job.profile.valley_s);
  }
  const double w = phase_power(job);  // [smoothing]: the checkpoint raised to the floor
  meter_.draw(job, queue_.now(), job.smoothing.floored(w, job.power_cap_W), phase_stretch(job, job.phase), w);
  job.phase_end = queue_.now() + phase_length(job, JobPhase::valley);
  job.next_event = queue_.schedule_at(
      job.phase_end, [this, j] { end_epoch(j); }, kPhasePriority);
}

void Engine::end_epoch(JobIndex j) {
  Job& job = job_at(j);
  meter_.settle(job_at(j), queue_.now());
  if (job.plan.checkpoint_async && job.epochs_done + 1 < job.spec.epochs) {
    begin_background_write(j);
  } else if (network_) {
    const double before = network_->power_W();
    network_->end_checkpoint(job);
    network_changed(before);
  }
  if (++job.epochs_done >= job.spec.epochs) {
    finish_job(j);
  } else {
    enter_peak(j);
  }
}

void Engine::begin_background_write(JobIndex j) {
  Job& job = job_at(j);
  end_background_write(j);  // the previous one ended by now: the valley waited for it
  double write_s = job.plan.checkpoint_write_s;
  if (network_) {
    const double before = network_->power_W();
    write_s = network_->begin_checkpoint(job);
    network_changed(before);
  }
  job.write_end = queue_.now() + Duration::from_seconds(write_s);
  job.write_event = queue_.schedule_at(
      job.write_end, [this, j] { end_background_write(j); }, kPhasePriority);
}

void Engine::end_background_write(JobIndex j) {
  Job& job = job_at(j);
  if (!job.write_event) return;
  queue_.cancel(job.write_event);  // a no-op when it is the event running now
  job.write_event = 0;
  if (network_) {
    const double before = network_->power_W();
    network_->end_checkpoint(job);
    network_changed(before);
  }
}

void Engine::stop_job(JobIndex j) {
  Job& job = job_at(j);
  job.stop_event = 0;
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
  if (job.stop_event) queue_.cancel(job.stop_event);
  job.stop_event = 0;
  running_.erase(std::find(running_.begin(), running_.end(), j));
  // A background checkpoint write still going ends with the job (its GPUs are released).
  end_background_write(j);
  meter_.draw(job, queue_.now(), job.gpu_idle_W);
  if (network_) {
    const double before = network_->power_W();
    network_->job_finished(job);
    network_changed(before);
  }
  groups_.release(j, job.gpus);
  job.state = JobState::finished;
  job.phase = JobPhase::none;
  job.end = queue_.now();
  job.next_event = 0;
  gpu_seconds_ += static_cast<double>(job.gpus.size()) * window_seconds(job.start, job.end);
  if (job.end >= Time::zero()) ++finished_;
  request_schedule();
}

void Engine::close_at_horizon() {
  const Time h = setup_.horizon;
  // Jobs submitted at or after the horizon never arrive; they are listed (pending) all the same.
  while (draw_job()) {
  }
  std::uint64_t running = 0;
  for (auto& job : jobs_) {
    if (job.state != JobState::running) continue;
    ++running;
    if (job.paused) {
      job.paused_gpu_seconds += static_cast<double>(job.gpus.size()) * window_seconds(job.phase_start, h);
      gpu_seconds_ += static_cast<double>(job.gpus.size()) * window_seconds(job.start, h);
      continue;
    }
    meter_.settle(job, h);
    if (job.phase == JobPhase::peak) meter_.close_peak(job);
    gpu_seconds_ += static_cast<double>(job.gpus.size()) * window_seconds(job.start, h);
  }
  ledger_.close(h);
  grid_->close(h);
  auto& s = summary_;
  s.scheduler = std::string(scheduler_->name());
  s.placement = std::string(placement_->name());
  s.predictor = std::string(predictor_.name());
  s.horizon_s = h.seconds();
  s.warmup_s = setup_.warmup.seconds();
  s.jobs_total = jobs_total_;
  s.jobs_arrived = jobs_arrived_;
  s.jobs_finished = finished_;
  s.jobs_running = running;
  s.jobs_queued = waiting_.size();
  s.gpu_seconds = gpu_seconds_;
  s.gpu_utilisation = gpu_seconds_ / (static_cast<double>(cluster_.gpus()) * h.seconds());
  s.gpu_energy_J = ledger_.gpu_energy_J();
  s.it_energy_J = ledger_.it_energy_J();
  s.facility_energy_J = ledger_.facility_energy_J();
  s.peak_facility_W = ledger_.peak_facility_W();
  if (facility_) {
    s.cooling = "weather";
    s.pue = s.it_energy_J > 0.0 ? s.facility_energy_J / s.it_energy_J : 0.0;
    s.pue_min_interval = ledger_.min_interval_pue();
    s.pue_max_interval = ledger_.max_interval_pue();
  }
  s.peak_facility_sample_W = ledger_.peak_facility_sample_W();
  s.mean_facility_W = s.facility_energy_J / h.seconds();
  s.carbon_kg = grid_->carbon_kg();
  s.cost = grid_->cost();
  if (bank_) {  // carbon and cost are charged on grid import
    s.battery = true;
    s.carbon_kg = bank_->carbon_kg();
    s.cost = bank_->cost();
    s.grid_import_J = bank_->import_J();
    s.peak_grid_import_W = bank_->peak_import_W();
    s.import_limit_W = setup_.import_limit_W;
    s.hours_over_import_limit = bank_->hours_over_limit();
    s.storage_loss_J = bank_->loss_J();
    s.storage_change_J = bank_->stored_change_J();
  }
  s.events = queue_.events_run();
  if (failures_) failures_->close(h);
  // The jobs still held add their figures after those already dropped: every sum runs in job order.
  for (auto& job : jobs_) account_job(job);
  // [smoothing]: on when the table or some job asks for it; the extra energy of every job (account_job).
  s.smoothing = smoothing_any_;
  if (s.smoothing) {
    s.smoothing_mode = workloads::to_string(setup_.smoothing.mode);
    s.smoothing_floor_fraction = setup_.smoothing.floor_fraction;
  }
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
