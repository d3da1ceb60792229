// The Gym-style loop's engine side: a run whose scheduling passes stop at decision points and wait for an
// action from Python. The engine runs on its own thread (run_to_file, so an episode writes a result file
// like any run); at a pass where at least one of the first `slots` queued jobs could be placed, it
// publishes a fixed-size observation and waits. An action k in 1..slots starts the k-th queued job where
// the scenario's placement puts it and asks again within the same pass; 0 (or a job that cannot start)
// ends the pass and lets simulated time go on to the next event.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fleetwatt/runs/scenario.hpp"
#include "fleetwatt/sim/engine/engine.hpp"

namespace fleetwatt::python {

/// What a decision point (or the end) tells the agent.
struct EnvState {
  std::vector<double> observation;
  double now_s = 0.0;
  double it_energy_J = 0.0;  ///< IT energy from simulated time 0 to the last power change, J
  std::uint64_t jobs_finished = 0;
  std::uint64_t queued = 0;
  bool started = false;  ///< whether the last action started a job
  bool done = false;     ///< the run reached its horizon (the result file is written)
};

class GymRun {
 public:
  /// Observation layout: 7 fleet and grid figures, then `slots` x 5 figures of the first queued jobs.
  static constexpr std::size_t kFleetFigures = 7, kSlotFigures = 5;
  /// The most queue slots an observation shows: far more than any agent reads, and its arrays stay small
  /// (an unbounded count asked for gigabytes at every step).
  static constexpr std::uint32_t kMaxSlots = 4096;

  /// Throws core::ConfigError at "slots" unless 1 <= slots <= kMaxSlots.
  GymRun(runs::Scenario scenario, std::optional<std::uint64_t> seed, std::filesystem::path output,
         std::uint32_t slots);
  /// Stops a run still going (no result file) and joins its thread.
  ~GymRun() { close(); }
  /// The same, at once (idempotent).
  void close();
  GymRun(const GymRun&) = delete;
  GymRun& operator=(const GymRun&) = delete;

  /// Starts the run; returns at its first decision point (or its end).
  EnvState start();
  /// Applies an action at the current decision point; returns at the next one (or the end).
  EnvState step(std::uint32_t action);
  [[nodiscard]] std::size_t observation_size() const { return kFleetFigures + kSlotFigures * slots_; }
  [[nodiscard]] const std::string& summary_text() const { return summary_text_; }

  // Called on the engine's thread by the run's scheduler.
  void decide(sim::SchedulerContext& ctx);

 private:
  EnvState wait_for_decision(std::unique_lock<std::mutex>& lock);
  void observe(const sim::SchedulerContext& ctx, EnvState& s) const;
  void add_it_energy(sim::Time t0, sim::Time t1, double it_W);

  runs::Scenario scenario_;
  std::optional<std::uint64_t> seed_;
  std::filesystem::path output_;
  std::uint32_t slots_;
  const sim::Engine* engine_ = nullptr;
  double horizon_s_ = 0.0, max_facility_W_ = 1.0;
  double it_energy_J_ = 0.0;  ///< engine thread only, copied into states under the lock
  bool started_ = false;      ///< engine thread only: a job started since the last published state
  std::atomic<bool> stop_{false};

  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool waiting_ = false;  ///< the engine waits at a decision point
  std::optional<std::uint32_t> action_;
  bool abort_ = false;
  bool finished_ = false;
  std::exception_ptr error_;
  EnvState state_;
  std::string summary_text_;
};

}  // namespace fleetwatt::python
