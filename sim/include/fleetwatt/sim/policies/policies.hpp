// Scheduling policies beyond FIFO, behind the one Scheduler interface: shortest predicted job first, EASY
// backfilling, a facility power cap, carbon-aware deferral, energy-aware consolidation and a
// demand-response event. Each is built by name from the scenario's [scheduler] section; each lives in its
// own file of sim/src/policies/ with its registry entry (name, description, declared parameters).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fleetwatt/sim/policies/policy_registry.hpp"
#include "fleetwatt/sim/policies/scheduler.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"

namespace fleetwatt::sim {

/// Where run-time estimates come from: the predictor (epochs x predicted epoch, cut at the job's limit)
/// or the trace's user estimate (falling back to the predictor where a job has none).
enum class EstimateSource { predictor, user };

/// The run time a policy assumes for a job (before it starts on a fleet of several GPU types: its run
/// time on the reference type, the first node group's); a capped job's phases stretched by the clock model.
[[nodiscard]] Duration estimated_runtime(const Job& job, EstimateSource source);

/// Shortest predicted job first: queued jobs start in order of estimated run time (ties: arrival order);
/// a job that cannot be placed is skipped, not waited for.
class SjfScheduler final : public Scheduler {
 public:
  explicit SjfScheduler(EstimateSource source = EstimateSource::predictor) : source_(source) {}
  [[nodiscard]] std::string_view name() const override { return "sjf"; }
  void schedule(SchedulerContext& ctx) override;

 private:
  EstimateSource source_;
};

/// EASY backfilling (Lifka 1995): the queue head gets a reservation at the earliest time enough GPUs free up
/// (from running jobs' estimated ends); later jobs may start now if they fit and either end by then or
/// leave the head's GPUs untouched.
class EasyBackfillScheduler final : public Scheduler {
 public:
  explicit EasyBackfillScheduler(EstimateSource source = EstimateSource::predictor) : source_(source) {}
  [[nodiscard]] std::string_view name() const override { return "easy"; }
  void schedule(SchedulerContext& ctx) override;

 private:
  EstimateSource source_;
};

/// Facility power cap. mode "queue": a job starts (in FIFO order, skipping those that would break the cap)
/// only if the facility peak predicted with every running job at its peak power stays at or under cap_W.
/// mode "gpu_cap": a job that does not fit at full power starts with its GPUs capped to what the headroom
/// allows (not below min_cap_fraction x TDP), stretching its compute phases.
class PowerCapScheduler final : public Scheduler {
 public:
  PowerCapScheduler(double cap_W, bool gpu_cap, double min_cap_fraction)
      : cap_W_(cap_W), gpu_cap_(gpu_cap), min_cap_fraction_(min_cap_fraction) {}
  [[nodiscard]] std::string_view name() const override { return "powercap"; }
  void schedule(SchedulerContext& ctx) override;
  [[nodiscard]] double cap_W() const noexcept { return cap_W_; }

 private:
  double cap_W_;
  bool gpu_cap_;
  double min_cap_fraction_;
};

/// Carbon-aware deferral: deferrable jobs wait while the carbon intensity is above `threshold` (default: the
/// signal's mean), but start no later than their deadline minus their estimated run time. Each waiting
/// deferrable job holds its GPUs for that latest start: other jobs go first come, first served, but one
/// starts only if it ends (by estimate) before the holds it would overlap or leaves them enough GPUs
/// (conservative backfilling), so the deadlines hold whenever the estimates do.
class CarbonAwareScheduler final : public Scheduler {
 public:
  CarbonAwareScheduler(std::shared_ptr<const sim::GridSignal> signal, double threshold)
      : signal_(std::move(signal)), threshold_(threshold) {}
  [[nodiscard]] std::string_view name() const override { return "carbon"; }
  void schedule(SchedulerContext& ctx) override;

 private:
  std::shared_ptr<const sim::GridSignal> signal_;
  double threshold_;
};

/// Energy-aware consolidation: FIFO starts on the lowest-numbered powered nodes; a node idle for
/// idle_timeout_s sleeps at sleep_W; sleeping nodes wake (wake_latency_s, wake_energy_J) when the queue
/// head cannot be placed on powered nodes.
class ConsolidatingScheduler final : public Scheduler {
 public:
  ConsolidatingScheduler(double idle_timeout_s, double sleep_W, double wake_latency_s, double wake_energy_J)
      : timeout_(Duration::from_seconds(idle_timeout_s)),
        sleep_W_(sleep_W),
        latency_(Duration::from_seconds(wake_latency_s)),
        wake_J_(wake_energy_J) {}
  [[nodiscard]] std::string_view name() const override { return "consolidate"; }
  void schedule(SchedulerContext& ctx) override;
  [[nodiscard]] std::vector<std::pair<std::string, double>> metrics() const override;

 private:
  Duration timeout_;
  double sleep_W_;
  Duration latency_;
  double wake_J_;
  std::vector<Time> idle_since_;  ///< per node; Time::max() while busy or asleep
  std::uint64_t sleeps_ = 0, wakes_ = 0;
};

/// Demand response: between start_s and end_s the facility must stay at or under target_W.
/// action "pause": at the start the most recently started jobs are paused until the predicted facility peak
/// meets the target; at the end they resume. action "cap": every running job's GPUs are capped to one
/// per-GPU level, the highest that meets the target (not below min_cap_fraction x TDP; if even that floor
/// is too high, the most recent jobs are paused as well), and the caps are lifted at the end. Either way no
/// job starts during the event that would break the target (under "cap" a job may start at the event's
/// cap). Lost GPU-hours (paused GPU time, and GPU time lost to slower clocks) are reported.
class DemandResponseScheduler final : public Scheduler {
 public:
  enum class Action { pause, cap };
  DemandResponseScheduler(double start_s, double end_s, double target_W, Action action = Action::pause,
                          double min_cap_fraction = 0.3)
      : start_(Time::from_seconds(start_s)),
        end_(Time::from_seconds(end_s)),
        target_W_(target_W),
        action_(action),
        min_cap_fraction_(min_cap_fraction) {}
  [[nodiscard]] std::string_view name() const override { return "dr"; }
  void schedule(SchedulerContext& ctx) override;
  [[nodiscard]] std::vector<std::pair<std::string, double>> metrics() const override;
  /// The per-GPU cap the event chose (0 before it or under "pause").
  [[nodiscard]] double event_cap_W() const noexcept { return cap_W_; }

 private:
  void shed(SchedulerContext& ctx);
  void restore(SchedulerContext& ctx);

  Time start_, end_;
  double target_W_;
  Action action_;
  double min_cap_fraction_;
  bool armed_ = false, shed_ = false, restored_ = false;
  std::vector<JobIndex> paused_;
  struct Capped {
    JobIndex job;
    double cap_before;   ///< the job's cap before the event (0: none)
    double lost_before;  ///< its capped_gpu_seconds when the event capped it
  };
  std::vector<Capped> capped_;
  double cap_W_ = 0.0;
  double lost_gpu_s_ = 0.0;
  Time shed_at_;
};

/// Predicted facility power (W) with every running, unpaused job at its peak (capped) power, plus what the
/// network draws now; with `extra_cap_W` > 0, as if every such job were also capped at it.
[[nodiscard]] double predicted_peak_facility_W(const SchedulerContext& ctx, double extra_cap_W = 0.0);
/// A job's increment over idle at its peak, per GPU (W), under its own cap and `extra_cap_W` if > 0.
[[nodiscard]] double peak_increment_per_gpu_W(const Job& job, double gpu_idle_W, double extra_cap_W = 0.0);

}  // namespace fleetwatt::sim
