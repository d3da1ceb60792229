// One generated scenario through the whole pipeline in-process, as `fleetwatt run` takes it: parsed, its
// workload prepared, its output size estimated, simulated into a temporary HDF5 file and read back. The
// outcomes allowed are a refusal as bad input (core::InputError, located) or a run whose numbers hold up:
// finite summary figures, facility energy >= IT energy >= GPU energy, every job accounted for, and a file
// with no inf anywhere and NaN only where docs/results.md documents it. Anything else (another exception, a
// run past its CPU-time limit, a broken figure) is returned as a problem to report with the scenario.
// Shared by the fuzz target (scenario_generated.cpp) and the seeded test; header-only for that reason.
#pragma once

#include <fmt/format.h>

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <typeinfo>

#include "documented_nan.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "fleetwatt/runs/output_estimate.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/run_to_file.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/sim/engine/engine.hpp"

namespace fleetwatt::fuzz {

struct GeneratedRun {
  bool ran = false;     ///< simulated and written; false: refused as bad input
  std::string refusal;  ///< the InputError's text when refused
  std::string problem;  ///< empty when the outcome is allowed; otherwise what went wrong
};

namespace generated_detail {

/// The first value of the file that breaks the rule above, as "dataset[i] = value", or "".
inline std::string first_non_finite(const std::filesystem::path& file) {
  const results::ResultReader r(file);
  for (const auto& name : r.datasets()) {
    if (r.kind(name) != results::ResultReader::Kind::real) continue;
    const bool nan_allowed = nan_documented(name);
    const auto values = r.doubles(name);
    for (std::size_t i = 0; i < values.size(); ++i)
      if (!std::isfinite(values[i]) && !(nan_allowed && std::isnan(values[i])))
        return fmt::format("{}[{}] = {}", name, i, values[i]);
  }
  return "";
}

/// What is wrong with a finished run's totals, or "".
inline std::string summary_problem(const sim::RunSummary& s) {
  for (const auto& [name, v] :
       {std::pair{"gpu_energy_J", s.gpu_energy_J}, std::pair{"it_energy_J", s.it_energy_J},
        std::pair{"facility_energy_J", s.facility_energy_J}, std::pair{"peak_facility_W", s.peak_facility_W},
        std::pair{"mean_facility_W", s.mean_facility_W}, std::pair{"carbon_kg", s.carbon_kg},
        std::pair{"gpu_seconds", s.gpu_seconds}, std::pair{"cost", s.cost}})
    // Rounding may leave a battery's carbon or import a hair below 0 (-1e-20 kg seen): only more is wrong.
    if (!std::isfinite(v) || v < -1e-6) return fmt::format("summary {} = {}", name, v);
  // Energy balance: the facility draws at least its IT load (PUE >= 1), the IT load at least its GPUs.
  const auto below = [](double a, double b) { return a < b * (1.0 - 1e-9) - 1e-6; };
  if (below(s.facility_energy_J, s.it_energy_J))
    return fmt::format("facility energy {} J is below the IT energy {} J", s.facility_energy_J,
                       s.it_energy_J);
  if (below(s.it_energy_J, s.gpu_energy_J))
    return fmt::format("IT energy {} J is below the GPU energy {} J", s.it_energy_J, s.gpu_energy_J);
  // Every job that arrived or was left by the warm-up is finished, running or queued at the horizon.
  if (s.jobs_arrived + s.jobs_at_start != s.jobs_finished + s.jobs_running + s.jobs_queued)
    return fmt::format("jobs: {} arrived + {} at the start != {} finished + {} running + {} queued",
                       s.jobs_arrived, s.jobs_at_start, s.jobs_finished, s.jobs_running, s.jobs_queued);
  return "";
}

/// The CPU time this process has used so far: the run's own thread, the result file's compressor and
/// anything else the run starts, but not what other processes take from a shared machine.
inline std::chrono::nanoseconds process_cpu_time() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

/// Raises `stop` once the process has spent `limit` of CPU time since construction, unless told to finish
/// first. CPU time, not wall time, so that a loaded machine (other fuzzing jobs, a build) cannot make an
/// ordinary scenario look slow; a run that waits instead of working is still stopped after ten times the
/// limit of wall time.
class Watchdog {
 public:
  Watchdog(std::atomic<bool>& stop, std::chrono::milliseconds limit)
      : thread_([this, &stop, limit] {
          const auto cpu_start = process_cpu_time();
          const auto wall_end = std::chrono::steady_clock::now() + 10 * limit;
          const auto poll =
              std::clamp(limit / 50, std::chrono::milliseconds(1), std::chrono::milliseconds(50));
          std::unique_lock<std::mutex> lock(mutex_);
          while (!done_cv_.wait_for(lock, poll, [this] { return done_; })) {
            if (process_cpu_time() - cpu_start >= limit || std::chrono::steady_clock::now() >= wall_end) {
              stop = true;
              return;
            }
          }
        }) {}
  ~Watchdog() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace generated_detail

/// The largest result file a generated run may write (the command line's --max-output refuses larger ones
/// the same way, before the run).
inline constexpr double kGeneratedMaxOutputBytes = 64.0 * 1024 * 1024;
/// The most memory a generated run may hold by the estimate (--max-memory refuses more the same way).
inline constexpr double kGeneratedMaxMemoryBytes = 512.0 * 1024 * 1024;

/// Runs `text` as the scenario `dir`/scenario.toml into `dir`/result.h5, the run stopped after
/// `cpu_limit` of CPU time (a problem: no generated scenario should take that long). Its preparation
/// (drawing, matching and checking the jobs, bounded by the expected jobs against the memory budget) may take
/// half as long: past it, the preparation must stop when told (as Ctrl-C tells it), and the scenario counts
/// as beyond the budget, like a result too large.
inline GeneratedRun run_generated(const std::string& text, const std::filesystem::path& dir,
                                  std::chrono::milliseconds cpu_limit) {
  using namespace generated_detail;
  GeneratedRun out;
  const auto result = dir / "result.h5";
  std::filesystem::remove(result);
  try {
    runs::PreparedRun r;
    {
      std::atomic<bool> stop{false};
      Watchdog watchdog(stop, cpu_limit / 2);
      try {
        r = runs::prepare_streamed_run(runs::parse_scenario(text, dir / "scenario.toml"), {},
                                       {&stop, kGeneratedMaxMemoryBytes});
      } catch (const sim::Interrupted&) {
        out.refusal =
            fmt::format("preparing the jobs took more than {} ms of CPU time", (cpu_limit / 2).count());
        return out;
      }
    }
    const runs::OutputEstimate e = runs::estimate_output(r);
    if (e.bytes > kGeneratedMaxOutputBytes) {
      out.refusal = fmt::format("{}: the result would hold {:.3g} bytes", e.dominant_key, e.bytes);
      return out;
    }
    if (e.memory_bytes > kGeneratedMaxMemoryBytes) {
      out.refusal = fmt::format("{}: the run would hold {:.3g} bytes", e.memory_key, e.memory_bytes);
      return out;
    }
    std::atomic<bool> stop{false};
    runs::RunOutcome done;
    {
      Watchdog watchdog(stop, cpu_limit);
      runs::RunToFileOptions options;
      options.stop = &stop;
      done = runs::run_to_file(r, result, std::move(options));
    }
    out.ran = true;
    out.problem = summary_problem(done.summary);
    if (out.problem.empty()) out.problem = first_non_finite(result);
  } catch (const core::InputError& e) {
    out.refusal = e.what();
    if (out.refusal.empty()) out.problem = "an input error without a message";
  } catch (const sim::Interrupted&) {
    out.problem = fmt::format("the run took more than {} ms of CPU time", cpu_limit.count());
  } catch (const std::exception& e) {
    out.problem = fmt::format("{} escaped: {}", typeid(e).name(), e.what());
  }
  // Nothing is left behind but a finished run's file: no temporary of a refused, failed or stopped one.
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("result.h5", 0) == 0 && (name != "result.h5" || !out.ran))
      out.problem += fmt::format("{}the run left {}", out.problem.empty() ? "" : "; ", name);
  }
  return out;
}

}  // namespace fleetwatt::fuzz
