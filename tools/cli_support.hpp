// Shared pieces of the subcommands: turning a scenario into a finished run, Ctrl-C handling, progress lines
// on a terminal, and the one place where bad-input exceptions become messages and exit codes.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "fleetwatt/models/power_predictor.hpp"
#include "fleetwatt/sim/engine.hpp"
#include "fleetwatt/workloads/scenario.hpp"

namespace fleetwatt::tools {

/// A JSON string literal (quoted, with quotes, backslashes and control characters escaped).
std::string json_string(std::string_view s);

/// Exit status for bad user input (scenario, trace, CSV, flags).
inline constexpr int kExitBadInput = 2;
/// Exit status for an interrupted run.
inline constexpr int kExitInterrupted = 130;

/// Raised by SIGINT/SIGTERM; the engine polls it.
std::atomic<bool>& stop_flag();
void install_signal_handlers();

/// Runs `body`, mapping bad input to one line on stderr and exit status 2, interruption to 130.
int guarded(const std::function<int()>& body);

/// True when stderr is a terminal (progress lines are only drawn there).
bool stderr_is_terminal();

/// A progress callback that redraws one stderr line at most a few times a second, or nothing when stderr
/// is not a terminal.
std::function<void(const sim::Progress&)> progress_printer();

/// Everything one run needs, built from a scenario (workload, predictor, engine setup).
struct PreparedRun {
  workloads::Scenario scenario;
  std::unique_ptr<models::PowerPredictor> predictor;
  std::vector<workloads::JobSpec> jobs;
  sim::EngineSetup setup;
};

/// Prints the scenario's warnings not printed yet (deprecated spellings), one line each on stderr.
void print_warnings(const workloads::Scenario& scenario);

/// Loads a scenario, applies a seed override and builds its jobs and predictor.
/// `band` ("low", "mid", "high"), when given, overrides the scenario's [predictor] band.
PreparedRun prepare_run(const std::filesystem::path& scenario_file, std::optional<std::uint64_t> seed,
                        const std::string& band = "");

}  // namespace fleetwatt::tools
