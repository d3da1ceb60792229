// The engine's two adapters. Context: what a scheduling policy sees of the engine and may ask of it
// (sim/policies/scheduler.hpp's SchedulerContext): the queue, the jobs, the cluster and the fleet's power;
// starts, wake-ups, and every control through the engine's one controls object. Runtime: what the controls
// and the failures see (job_runtime.hpp).
#pragma once

#include <algorithm>

#include "engine_controls.hpp"
#include "event_priorities.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/fleet/network_model.hpp"
#include "job_runtime.hpp"

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
  double facility_power_W() const override { return e_.site_.ledger().facility_power_W(); }
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

class Engine::Runtime final : public JobRuntime {
 public:
  explicit Runtime(Engine& e) : e_(e) {}
  EventQueue& queue() override { return e_.queue_; }
  Time horizon() const override { return e_.setup_.horizon; }
  bool holds(JobIndex j) const override { return e_.holds(j); }
  Job& job(JobIndex j) override { return e_.held_job(j); }
  std::deque<Job>& held_jobs() override { return e_.jobs_; }
  JobIndex first_held() const override { return e_.first_job_; }
  JobMeter& meter() override { return e_.meter_; }
  bool hold_steps(JobIndex j) override { return e_.hold_steps(j); }
  void draw_phase(JobIndex j) override { e_.draw_phase(j); }
  void schedule_phase_end(JobIndex j) override { e_.schedule_phase_end(j); }
  void enter_peak(JobIndex j) override { e_.enter_peak(j); }
  void stop_job(JobIndex j) override { e_.stop_job(j); }
  void leave_network(Job& job) override {
    if (e_.network_) e_.change_network([&](NetworkModel& n) { n.job_paused(job); });
  }
  void rejoin_network(Job& job) override {
    if (e_.network_) e_.change_network([&](NetworkModel& n) { n.job_resumed(job); });
  }

 private:
  Engine& e_;
};

}  // namespace fleetwatt::sim
