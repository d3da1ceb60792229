// Signal handling, progress, error mapping and run preparation for the subcommands.
#include "cli_support.hpp"

#include "fleetwatt/workloads/replay.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/banded_predictor.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/sim/policy_registry.hpp"
#include "fleetwatt/workloads/job_generator.hpp"
#include "fleetwatt/workloads/scenario_loader.hpp"

namespace fleetwatt::tools {

std::atomic<bool>& stop_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

extern "C" void fleetwatt_on_signal(int) {
  stop_flag().store(true);
}

void install_signal_handlers() {
  std::signal(SIGINT, fleetwatt_on_signal);
  std::signal(SIGTERM, fleetwatt_on_signal);
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

bool stderr_is_terminal() {
  return isatty(STDERR_FILENO) == 1;
}

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const workloads::InputError& e) {
    if (stderr_is_terminal()) std::cerr << "\r\033[K";
    std::cerr << "fleetwatt: error: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const sim::Interrupted&) {
    if (stderr_is_terminal()) std::cerr << "\r\033[K";
    std::cerr << "fleetwatt: interrupted; no result file was written\n";
    return kExitInterrupted;
  } catch (const std::exception& e) {
    if (stderr_is_terminal()) std::cerr << "\r\033[K";
    std::cerr << "fleetwatt: error: " << e.what() << '\n';
    return 1;
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
    const double frac =
        p.horizon.ns() > 0 ? static_cast<double>(p.now.ns()) / static_cast<double>(p.horizon.ns()) : 1;
    std::cerr << fmt::format("\r\033[K  {:5.1f} %  simulated {} of {}  jobs done {}/{}  events {}",
                             100.0 * frac, sim::format_time(p.now), sim::format_time(p.horizon),
                             p.jobs_finished, p.jobs_total, p.events)
              << (done ? "\n" : "") << std::flush;
  };
}

void print_warnings(const workloads::Scenario& scenario) {
  for (const auto& w : scenario.warnings->take_new()) {
    if (stderr_is_terminal()) std::cerr << "\r\033[K";
    std::cerr << "fleetwatt: warning: " << w << '\n';
  }
}

PreparedRun prepare_run(const std::filesystem::path& scenario_file, std::optional<std::uint64_t> seed,
                        const std::string& band) {
  PreparedRun r;
  r.scenario = workloads::load_scenario(scenario_file);
  if (seed) r.scenario.seed = *seed;
  if (band == "low") r.scenario.predictor.band = workloads::Band::low;
  if (band == "high") r.scenario.predictor.band = workloads::Band::high;
  if (band == "mid") r.scenario.predictor.band = workloads::Band::mid;
  r.setup = sim::engine_setup(r.scenario);
  r.predictor = models::at_band(models::PredictorRegistry::with_builtins().make(r.scenario.predictor),
                                r.scenario.predictor.band);
  // The [scheduler] section is checked before any job is built, so its errors and warnings come first.
  sim::check_scheduler_config(r.scenario.scheduler);
  print_warnings(r.scenario);
  // Trace and preset jobs match their recorded run times to this predictor's estimate on this GPU.
  const models::PowerPredictor& predictor = *r.predictor;
  const models::GpuHardware gpu = r.setup.gpu;
  r.jobs = workloads::build_scenario_workload(r.scenario, [&predictor, gpu](const workloads::JobSpec& j) {
    const auto p = j.phases ? *j.phases : predictor.predict(j, gpu);
    return p.epoch_s() * j.epochs;
  });
  return r;
}

}  // namespace fleetwatt::tools
