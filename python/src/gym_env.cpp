// The Gym-style loop's engine side (see gym_env.hpp). The engine thread never touches Python: actions and
// observations cross by a mutex and a condition variable, so the GIL stays with the caller.
#include "gym_env.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/results/metrics/summary_report.hpp"
#include "fleetwatt/runs/output_path.hpp"
#include "fleetwatt/runs/run_to_file.hpp"
#include "version.hpp"

namespace fleetwatt::python {

namespace {

// The engine's scheduler during an episode: every pass goes to the run's decide().
class GymScheduler final : public sim::Scheduler {
 public:
  explicit GymScheduler(GymRun& run) : run_(run) {}
  [[nodiscard]] std::string_view name() const override { return "gym"; }
  void schedule(sim::SchedulerContext& ctx) override { run_.decide(ctx); }

 private:
  GymRun& run_;
};

}  // namespace

GymRun::GymRun(runs::Scenario scenario, std::optional<std::uint64_t> seed, std::filesystem::path output,
               std::uint32_t slots)
    : scenario_(std::move(scenario)), seed_(seed), output_(std::move(output)), slots_(slots) {
  if (slots < 1 || slots > kMaxSlots)
    throw core::ConfigError(
        {}, "slots", fmt::format("{} is not in 1..{} (queue slots an observation shows)", slots, kMaxSlots));
}

void GymRun::close() {
  {
    std::lock_guard lock(mutex_);
    abort_ = true;
  }
  stop_.store(true);
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

EnvState GymRun::start() {
  // Checked as fleetwatt.run checks its output, before anything runs.
  runs::check_output_path(output_, {"Env", 0, 0}, "output", runs::scenario_inputs(scenario_));
  // Prepared here, on the caller's thread: a bad scenario is the caller's error at once.
  auto run = std::make_shared<runs::PreparedRun>(runs::prepare_run(scenario_, {seed_, std::nullopt}));
  horizon_s_ = run->setup.horizon.seconds();
  // Facility power with every server and GPU at full power: the observation's scale for power.
  const auto groups = sim::fleet_groups(run->setup);
  double full = 0.0;
  for (const auto& g : groups) full += g.nodes * (g.node_base_W + g.gpus_per_node * g.gpu.tdp_W);
  max_facility_W_ = std::max(1.0, full * run->setup.pue);
  thread_ = std::thread([this, run] {
    try {
      runs::RunToFileOptions o;
      o.version = FLEETWATT_VERSION;
      o.git_commit = FLEETWATT_GIT_COMMIT;
      o.stop = &stop_;
      o.scheduler = std::make_unique<GymScheduler>(*this);
      o.before_run = [this](sim::Engine& e) {
        engine_ = &e;
        e.observe_power([this](sim::Time t0, sim::Time t1, double it_W) { add_it_energy(t0, t1, it_W); });
      };
      const auto done = runs::run_to_file(*run, output_, std::move(o));
      std::lock_guard lock(mutex_);
      summary_text_ = results::format_summary(done.summary, done.grid, done.clock, done.quality);
      state_.done = true;
      state_.now_s = horizon_s_;
      state_.it_energy_J = it_energy_J_;
      state_.jobs_finished = done.summary.jobs_finished;
      state_.queued = done.summary.jobs_queued;
      state_.started = started_;
    } catch (...) {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    finished_ = true;
    engine_ = nullptr;
    changed_.notify_all();
  });
  std::unique_lock lock(mutex_);
  return wait_for_decision(lock);
}

EnvState GymRun::step(std::uint32_t action) {
  std::unique_lock lock(mutex_);
  if (finished_) {
    if (error_) std::rethrow_exception(error_);
    return state_;
  }
  if (action > slots_)
    throw std::invalid_argument("action " + std::to_string(action) + " is not in 0.." +
                                std::to_string(slots_));
  action_ = action;
  waiting_ = false;
  changed_.notify_all();
  return wait_for_decision(lock);
}

EnvState GymRun::wait_for_decision(std::unique_lock<std::mutex>& lock) {
  changed_.wait(lock, [&] { return waiting_ || finished_; });
  if (finished_ && error_) std::rethrow_exception(error_);
  return state_;
}

void GymRun::add_it_energy(sim::Time t0, sim::Time t1, double it_W) {
  const sim::Time a = std::max(t0, sim::Time::zero());
  if (t1 > a) it_energy_J_ += it_W * (t1 - a).seconds();
}

void GymRun::observe(const sim::SchedulerContext& ctx, EnvState& s) const {
  const auto& c = ctx.cluster();
  const auto queue = ctx.queue();
  s.now_s = ctx.now().seconds();
  s.it_energy_J = it_energy_J_;
  s.queued = queue.size();
  std::uint64_t finished = 0;
  for (const auto& j : engine_->jobs()) finished += j.state == sim::JobState::finished;
  s.jobs_finished = finished;
  const auto& setup = engine_->setup();
  std::vector<double>& o = s.observation;
  o.assign(observation_size(), 0.0);
  o[0] = horizon_s_ > 0 ? s.now_s / horizon_s_ : 0.0;
  o[1] = static_cast<double>(queue.size());
  o[2] = static_cast<double>(ctx.running().size());
  o[3] = c.gpus() ? static_cast<double>(c.free_gpus()) / c.gpus() : 0.0;
  o[4] = ctx.facility_power_W() / max_facility_W_;
  o[5] = setup.carbon_signal ? setup.carbon_signal->at(s.now_s) : 0.0;
  o[6] = setup.price_signal ? setup.price_signal->at(s.now_s) : 0.0;
  for (std::size_t k = 0; k < slots_ && k < queue.size(); ++k) {
    const sim::Job& job = ctx.job(queue[k]);
    double* slot = &o[kFleetFigures + kSlotFigures * k];
    slot[0] = job.spec.n_gpus;
    slot[1] = job.predicted_runtime().seconds() / 3600.0;
    slot[2] = job.peak_W();
    slot[3] = (s.now_s - job.spec.submit_s) / 3600.0;
    slot[4] = ctx.place(queue[k]) ? 1.0 : 0.0;
  }
}

void GymRun::decide(sim::SchedulerContext& ctx) {
  while (true) {
    // A decision point only where some of the first slots could start now: elsewhere there is no choice.
    const auto queue = ctx.queue();
    bool choice = false;
    for (std::size_t k = 0; k < slots_ && k < queue.size() && !choice; ++k)
      choice = ctx.place(queue[k]).has_value();
    if (!choice) return;
    std::unique_lock lock(mutex_);
    if (abort_) throw sim::Interrupted();
    observe(ctx, state_);
    state_.started = started_;
    started_ = false;
    action_.reset();
    waiting_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return action_.has_value() || abort_; });
    if (abort_) throw sim::Interrupted();
    const std::uint32_t a = *action_;
    lock.unlock();
    if (a == 0 || a > queue.size()) return;
    const sim::JobIndex j = queue[a - 1];
    auto p = ctx.place(j);
    if (!p) return;
    ctx.start(j, std::move(*p));
    started_ = true;
  }
}

}  // namespace fleetwatt::python
