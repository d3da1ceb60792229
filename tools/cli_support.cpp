// Signal handling, progress, error mapping and result-path checks for the subcommands.
#include "cli_support.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <new>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/results/hdf5/hdf5_error.hpp"
#include "fleetwatt/runs/output_estimate.hpp"
#include "fleetwatt/runs/output_path.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"

namespace fleetwatt::tools {

std::atomic<bool>& stop_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

namespace {

// What the handler reads: plain lock-free atomics of static storage (async-signal-safe).
std::atomic<bool> g_polling{false};
std::atomic<int> g_signal{0};

}  // namespace

extern "C" void fleetwatt_on_signal(int sig) {
  const int earlier = g_signal.exchange(sig);
  if (g_polling.load() && earlier == 0) {
    stop_flag().store(true);  // the command stops at its next poll and cleans up itself
    return;
  }
  // Nothing polls (or a second signal): remove what is being written and end now, within the second. The
  // words are the polling path's (guarded, below): a signal sent twice at once (GNU timeout signals the
  // command and then its process group) may end the run either way, and the user reads the same line.
  fleetwatt::core::remove_live_temporaries();
  static const char message[] = "fleetwatt: interrupted; no result file was written\n";
  [[maybe_unused]] const auto n = ::write(STDERR_FILENO, message, sizeof message - 1);
  ::_exit(128 + sig);
}

void set_polling(bool polling) {
  g_polling.store(polling);
}

void install_signal_handlers(bool polling) {
  g_polling.store(polling);
  std::signal(SIGINT, fleetwatt_on_signal);
  std::signal(SIGTERM, fleetwatt_on_signal);
  // Past a file-size limit (ulimit -f) a write fails with EFBIG and is reported like a full disk, instead
  // of the default action (terminate with a core dump, leaving the temporary file behind).
#ifdef SIGXFSZ
  std::signal(SIGXFSZ, SIG_IGN);
#endif
}

int interrupted_exit_status() {
  const int sig = g_signal.load();
  return sig != 0 ? 128 + sig : kExitInterrupted;
}

bool stderr_is_terminal() {
  return isatty(STDERR_FILENO) == 1;
}

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const jobs::InputError& e) {
    if (stderr_is_terminal()) std::cerr << "\r\033[K";
    std::cerr << "fleetwatt: error: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const sim::Interrupted&) {
    if (stderr_is_terminal()) std::cerr << "\r\033[K";
    std::cerr << "fleetwatt: interrupted; no result file was written\n";
    return interrupted_exit_status();
  } catch (const std::bad_alloc&) {
    // The estimate checked before the run (--max-memory) is a floor: the rest is the system's refusal.
    if (stderr_is_terminal()) std::cerr << "\r\033[K";
    std::cerr << "fleetwatt: error: out of memory (the system refused an allocation); no result file was "
                 "written\n";
    return 1;
  } catch (const std::exception& e) {
    if (stderr_is_terminal()) std::cerr << "\r\033[K";
    std::cerr << "fleetwatt: error: " << e.what() << '\n';
    // A result file whose close failed is abandoned half torn down: HDF5's exit handler would crash on it.
    if (results::hdf5_file_abandoned()) results::end_before_hdf5_exit_handler(1);
    return 1;
  } catch (...) {
    // Not a std::exception: HDF5's own (a full disk while a result streams: the writer's destructor has
    // removed its temporary file during unwinding), or a bug.
    if (stderr_is_terminal()) std::cerr << "\r\033[K";
    if (const auto h5 = results::hdf5_error_text(std::current_exception())) {
      std::cerr << "fleetwatt: error: " << *h5 << '\n';
      // A file whose close failed is left half torn down by HDF5 1.10, and the library's own exit handler
      // (H5close) would crash closing it again: leave without running exit handlers. The temporary file is
      // already gone (removed while the exception unwound).
      results::end_before_hdf5_exit_handler(1);
    }
    std::cerr
        << "fleetwatt: internal error: an unexpected exception; please report it with the command line\n";
    return kExitInternal;
  }
}

std::function<void(const sim::Progress&)> progress_printer() {
  if (!stderr_is_terminal()) return {};
  auto last = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  return [last](const sim::Progress& p) {
    const auto now = std::chrono::steady_clock::now();
    const bool done = p.now >= p.horizon;
    if (!done && now - *last < std::chrono::milliseconds(200)) return;
    *last = now;
    const double span = static_cast<double>((p.horizon - p.start).ns());  // a warm-up starts before 0
    const double frac = span > 0 ? static_cast<double>((p.now - p.start).ns()) / span : 1;
    std::cerr << fmt::format("\r\033[K  {:5.1f} %  simulated {} of {}  jobs done {}/{}  events {}",
                             100.0 * frac, sim::format_time(p.now), sim::format_time(p.horizon),
                             p.jobs_finished, p.jobs_total, p.events)
              << (done ? "\n" : "") << std::flush;
  };
}

void print_warnings(const runs::Scenario& scenario) {
  for (const auto& w : scenario.warnings->take_new()) {
    if (stderr_is_terminal()) std::cerr << "\r\033[K";
    std::cerr << "fleetwatt: warning: " << w << '\n';
  }
}

void check_output_path(const std::filesystem::path& path, const jobs::SourceLocation& where,
                       const std::string& key, const std::filesystem::path& scenario_file) {
  runs::check_output_path(path, where, key, {scenario_file});
  warn_stale_temporaries(path);
}

void check_run_output_path(const std::filesystem::path& path, const jobs::SourceLocation& where,
                           const std::string& key, const runs::Scenario& scenario) {
  runs::check_output_path(path, where, key, runs::scenario_inputs(scenario));
  warn_stale_temporaries(path);
}

namespace {

// How the user wrote an option: its short flag (-o) if it has one, else its long one, else the positional
// argument's name.
std::string flag_of(const CLI::Option& o) {
  if (!o.get_snames().empty()) return "-" + o.get_snames().front();
  if (!o.get_lnames().empty()) return "--" + o.get_lnames().front();
  return o.get_name();
}

}  // namespace

void refuse_output_over_input(const CLI::App& command) {
  namespace fs = std::filesystem;
  // The options that name a file the command writes; every other option naming an existing file is an
  // input. Writing over an input (a trace, the scenario, telemetry) would destroy it on success.
  static const std::vector<std::string> outputs{"output", "csv", "dot", "records", "rows"};
  const auto is_output = [](const CLI::Option* o) {
    for (const auto& name : outputs)
      if (o->check_lname(name)) return true;
    return false;
  };
  std::vector<std::pair<std::string, fs::path>> inputs;
  for (const CLI::Option* o : command.get_options()) {
    if (is_output(o)) continue;
    for (const auto& value : o->results()) {
      std::error_code ec;
      if (value != "-" && fs::is_regular_file(value, ec)) inputs.emplace_back(flag_of(*o), value);
    }
  }
  for (const CLI::Option* o : command.get_options()) {
    if (!is_output(o)) continue;
    for (const auto& value : o->results()) {
      std::error_code ec;
      if (value != "-") warn_stale_temporaries(value);
      for (const auto& [name, input] : inputs)
        if (fs::equivalent(value, input, ec))
          throw jobs::ConfigError(
              {}, flag_of(*o),
              fmt::format("{}: is the {} this command reads; give another file name", value, name));
    }
  }
  for (const CLI::App* sub : command.get_subcommands()) refuse_output_over_input(*sub);
}

void check_output_size(const runs::PreparedRun& run, std::uint64_t max_bytes) {
  const runs::OutputEstimate e = runs::estimate_output(run);
  if (e.bytes <= static_cast<double>(max_bytes)) return;
  constexpr double GiB = 1073741824.0;
  throw jobs::ConfigError(
      {run.scenario.file.string(), 0, 0}, e.dominant_key,
      fmt::format("the result file would hold about {:.3g} GiB uncompressed ({} facility intervals, {} "
                  "servers x {} node "
                  "intervals, {} jobs; GPU changes not counted), above --max-output {:.3g} GiB: raise {}, "
                  "shorten workload.horizon_s, or give a larger --max-output",
                  e.bytes / GiB, e.facility_rows, e.nodes, e.node_samples, e.jobs,
                  static_cast<double>(max_bytes) / GiB, e.dominant_key));
}

void add_max_output_option(CLI::App& cmd, std::uint64_t& max_bytes) {
  cmd.add_option("--max-output", max_bytes,
                 "Refuse a run whose result file would exceed this size, estimated before it runs (bytes, "
                 "or 500MB, 20GB; 1 KB = 1024 bytes; default 10GB)")
      ->transform(CLI::AsSizeValue(false));
}

namespace {
// MemAvailable of /proc/meminfo (what can be allocated without swapping), bytes; 0 where it is not there.
std::uint64_t available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}
}  // namespace

double memory_limit_bytes(std::uint64_t given) {
  if (given > 0) return static_cast<double>(given);
  const std::uint64_t available = available_memory_bytes();
  return static_cast<double>(available > 0 ? std::min(available, kDefaultMaxMemoryBytes)
                                           : kDefaultMaxMemoryBytes);
}

void check_memory_size(runs::PreparedRun& run, std::uint64_t max_bytes) {
  const bool given = max_bytes > 0;
  max_bytes = static_cast<std::uint64_t>(memory_limit_bytes(max_bytes));
  const runs::OutputEstimate e = runs::estimate_output(run);
  if (e.memory_bytes <= static_cast<double>(max_bytes)) {
    runs::limit_held_jobs(run, static_cast<double>(max_bytes));
    return;
  }
  constexpr double GiB = 1073741824.0;
  const char* remedy = e.memory_key == "workload" ? "lower the rate, shorten workload.horizon_s or warmup_s"
                       : e.memory_key == "fleet.nodes" ? "simulate fewer servers"
                                                       : "raise output.facility_interval_s or shorten "
                                                         "workload.horizon_s";
  throw jobs::ConfigError(
      {run.scenario.file.string(), 0, 0}, e.memory_key,
      fmt::format("the run would hold about {:.3g} GiB in memory ({} facility intervals, a power-quality "
                  "segment of {} samples, {} jobs held, {} servers{} at {:.3g} GiB), above {} {:.3g} GiB: "
                  "{}, or give a larger --max-memory",
                  e.memory_bytes / GiB, e.facility_rows, e.spectrum_samples, e.held_jobs, e.nodes,
                  run.setup.topology ? " and their interconnect" : "", e.fleet_memory_bytes / GiB,
                  given ? "--max-memory" : "the default --max-memory", static_cast<double>(max_bytes) / GiB,
                  remedy));
}

void add_max_memory_option(CLI::App& cmd, std::uint64_t& max_bytes) {
  cmd.add_option("--max-memory", max_bytes,
                 "Refuse a run whose memory would exceed this size, estimated before it runs (bytes, or "
                 "500MB, 20GB; 1 KB = 1024 bytes; default: 2 GB, or the machine's available memory when "
                 "less)")
      ->transform(CLI::AsSizeValue(false));
}

void warn_stale_temporaries(const std::filesystem::path& target) {
  static std::vector<std::filesystem::path> warned;  // each target once (options and [output] checks)
  if (std::find(warned.begin(), warned.end(), target) != warned.end()) return;
  warned.push_back(target);
  for (const auto& stale : core::stale_temporaries(target))
    std::cerr << fmt::format(
        "fleetwatt: warning: {} is the temporary file of a process that no longer runs (killed while "
        "writing {}); remove it to free its space\n",
        stale.string(), target.string());
}

void add_set_option(CLI::App& cmd, std::vector<std::string>& overrides) {
  cmd.add_option(
         "--set", overrides,
         "Override a scenario key before it is checked (repeatable, applied in order): a dotted key, "
         "arrays indexed from 0, a TOML value or a bare word as a string, e.g. --set fleet.nodes=2000 "
         "--set scheduler.policy=easy --set 'fleet.group[1].gpu=h100'")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
}

std::optional<models::Band> band_override(const std::string& band) {
  if (band == "low") return models::Band::low;
  if (band == "mid") return models::Band::mid;
  if (band == "high") return models::Band::high;
  return std::nullopt;
}

}  // namespace fleetwatt::tools
