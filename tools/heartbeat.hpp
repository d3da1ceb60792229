// A heartbeat for long commands whose stderr is not a terminal (a log file, a pipe, a batch job): a plain
// line on stderr when nothing has been said for a while, naming the command's current phase and, while it
// simulates, the latest progress figures. A terminal gets the redrawn progress line instead
// (progress_printer in cli_support.hpp), and there the heartbeat stays silent. Without it, a run writing
// to a log is silent for minutes or hours, and a wrapper cannot tell a long preparation from a hang.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "fleetwatt/sim/engine/engine.hpp"

namespace fleetwatt::tools {

/// The silence after which a line is printed: 30 s. FLEETWATT_HEARTBEAT_S (seconds, > 0) shortens it for
/// the tests alone, so that a run of a few seconds can show its lines; it is not a user setting.
[[nodiscard]] std::chrono::milliseconds heartbeat_period();

/// The line the heartbeat prints, without its newline: "fleetwatt: PHASE, 45 s elapsed", or with progress
/// figures "fleetwatt: simulating: 42.0 % (3 h 10 min of 24 h simulated, jobs done 12/40), 120 s elapsed".
[[nodiscard]] std::string heartbeat_line(const std::string& phase,
                                         const std::optional<sim::Progress>& progress, double elapsed_s);

/// A background thread, started when stderr is not a terminal, that sleeps until `period` has passed
/// since the last line (its own, or one the command reported with spoke()) and then prints one. The engine
/// only hands it figures (progress(), a copy under a lock every 100,000 events): its hot path does not wait
/// on the printing. The destructor stops and joins the thread, so that leaving the command by any path (an
/// exception, Ctrl-C's sim::Interrupted) ends it; stop() ends it earlier, before a final summary, after
/// which nothing more is printed. Ctrl-C ending the process in the signal handler ends the thread with it.
class Heartbeat {
 public:
  /// `active` false (or stderr a terminal, by default) starts no thread: every call does nothing.
  explicit Heartbeat(std::chrono::milliseconds period = heartbeat_period());
  Heartbeat(std::chrono::milliseconds period, bool active);
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  /// The phase the next lines name ("loading the scenario", "drawing the workload", "simulating",
  /// "writing"); the progress figures are forgotten until the next progress().
  void phase(const std::string& name);
  /// The simulation's latest figures, shown after the phase's name; once the simulated time reaches the
  /// horizon, the phase is "writing" (the result file is completed after the engine's last call).
  void progress(const sim::Progress& p);
  /// The command printed a line of its own (a sweep member done): the silence starts again.
  void spoke();
  /// Ends the thread; nothing is printed after it returns. Called again, or by the destructor, it does
  /// nothing more.
  void stop();
  /// Whether a thread runs (stderr is not a terminal).
  [[nodiscard]] bool active() const noexcept { return thread_.joinable(); }
  /// A progress callback for the engine: `terminal` (progress_printer(), for a terminal) when the
  /// heartbeat is inactive, else one that feeds progress().
  std::function<void(const sim::Progress&)> callback(std::function<void(const sim::Progress&)> terminal);

 private:
  void loop();

  std::chrono::milliseconds period_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point last_said_;
  std::string phase_;
  std::optional<sim::Progress> progress_;
  std::thread thread_;
};

}  // namespace fleetwatt::tools
