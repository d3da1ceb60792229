// Shared pieces of the subcommands: checking result paths before a run, Ctrl-C handling, progress lines on a
// terminal, and the one place where bad-input exceptions become messages and exit codes. Runs themselves are
// assembled by runs::prepare_run (fleetwatt/runs/run_assembly.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/json_text.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario.hpp"
#include "fleetwatt/sim/engine/engine.hpp"

namespace fleetwatt::tools {

using core::json_number;
using core::json_string;

/// Exit status for bad user input (scenario, trace, CSV, flags).
inline constexpr int kExitBadInput = 2;
/// A bug (an exception of no known kind): a short message asking for a report.
inline constexpr int kExitInternal = 3;
/// Exit status for a run interrupted by SIGINT (Ctrl-C); SIGTERM gives 143.
inline constexpr int kExitInterrupted = 130;

/// Raised by SIGINT/SIGTERM in a command that polls it (the engine does, every 100,000 events).
std::atomic<bool>& stop_flag();
/// Refuses (ConfigError naming the option, exit 2) an output option (-o/--output, --csv, --dot, --records,
/// --rows) of `command` or its subcommands that names the same file as another of its options (an input).
void refuse_output_over_input(const CLI::App& command);
/// The default of --max-output: 10 GiB.
inline constexpr std::uint64_t kDefaultMaxOutputBytes = 10ull << 30;
/// Refuses (ConfigError naming the dominant [output] key, exit 2) a run whose result file would exceed
/// `max_bytes` (runs/output_estimate.hpp), before it is simulated.
void check_output_size(const runs::PreparedRun& run, std::uint64_t max_bytes);
/// Adds --max-output SIZE (bytes, or with a unit: 500MB, 20GB; 1 KB = 1024 bytes) to `cmd`.
void add_max_output_option(CLI::App& cmd, std::uint64_t& max_bytes);
/// Refuses (ConfigError naming the key that drives it, exit 2) a run whose memory, estimated before it runs
/// (runs/output_estimate.hpp), would exceed `max_bytes`; 0 stands for the default, kDefaultMaxMemoryBytes or
/// the machine's available memory (MemAvailable in /proc/meminfo) when less. A streamed run's queue is then
/// bounded by what is left (runs::limit_held_jobs): outgrowing it is bad input at the arrival rate.
void check_memory_size(runs::PreparedRun& run, std::uint64_t max_bytes);
/// The default of --max-memory: 2 GiB, the most a scenario file may make a command hold unless the user
/// asks for more (a held job is ~2.6 kB: about 800,000 jobs held for compare, sweep and Python-style runs;
/// a streamed run holds only its queue).
inline constexpr std::uint64_t kDefaultMaxMemoryBytes = 2ull << 30;
/// The memory limit a command runs under: `given` (--max-memory) when set, else the default
/// (kDefaultMaxMemoryBytes, or the available memory when less), bytes.
[[nodiscard]] double memory_limit_bytes(std::uint64_t given);
/// Adds --max-memory SIZE (bytes, or with a unit as --max-output; default: kDefaultMaxMemoryBytes, or the
/// available memory when less) to `cmd`.
void add_max_memory_option(CLI::App& cmd, std::uint64_t& max_bytes);
/// Warns on stderr of temporary files beside `target` left by processes that no longer run.
void warn_stale_temporaries(const std::filesystem::path& target);
/// SIGINT and SIGTERM: a command that `polling` (run, sweep, compare, bench, report) sees stop_flag() raised
/// and stops itself, removing its output (a second signal ends it at once); any other command ends at
/// once, with the live temporary outputs (core::LiveTemporary) removed: exit 128 + the signal (130, 143).
void install_signal_handlers(bool polling);
/// Whether the command polls stop_flag() from now on. A polling command clears it while it loads and builds
/// its workload (drawing and predicting millions of arrivals polls nothing, and nothing is written yet), so
/// that a signal then ends it at once, and sets it again before it simulates.
void set_polling(bool polling);
/// 128 + the signal that stopped the command (130 when none was seen).
[[nodiscard]] int interrupted_exit_status();

/// Runs `body`, mapping bad input to one line on stderr and exit status 2, interruption to 130.
int guarded(const std::function<int()>& body);

/// True when stderr is a terminal (progress lines are only drawn there).
bool stderr_is_terminal();

/// A progress callback that redraws one stderr line at most a few times a second, or nothing when stderr
/// is not a terminal.
std::function<void(const sim::Progress&)> progress_printer();

/// Refuses, before any simulation, a result path that cannot be written: a folder, a path in a missing
/// folder or one where no file can be created, something other than a regular file, or the scenario file
/// itself. Nothing is left behind. `where` and `key` say where the path came from ("-o" on the command line,
/// or the scenario's [output] path); the message names the path.
void check_output_path(const std::filesystem::path& path, const jobs::SourceLocation& where,
                       const std::string& key, const std::filesystem::path& scenario_file);
/// The same for a run of `scenario`: the path is none of the files it reads (runs::scenario_inputs: its
/// jobs_csv, trace, topology file, signals, ...).
void check_run_output_path(const std::filesystem::path& path, const jobs::SourceLocation& where,
                           const std::string& key, const runs::Scenario& scenario);

/// Prints the scenario's warnings not printed yet (deprecated spellings), one line each on stderr.
void print_warnings(const runs::Scenario& scenario);

/// Adds `--set KEY=VALUE` (repeatable) to a command that loads a scenario: the assignments, in order, for
/// runs::load_scenario(file, overrides).
void add_set_option(CLI::App& cmd, std::vector<std::string>& overrides);

/// Parses `--band low|mid|high` (already checked by the option's validator); empty: no override.
std::optional<models::Band> band_override(const std::string& band);

}  // namespace fleetwatt::tools
