// Run assembly: scenario + overrides -> setup, predictor at its band, workload; prepared run -> engine.
#include "fleetwatt/runs/run_assembly.hpp"

#include "fleetwatt/runs/engine_setup.hpp"
#include "fleetwatt/runs/output_estimate.hpp"
#include "fleetwatt/runs/scenario_predictor.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/jobs/job_generator.hpp"
#include "fleetwatt/jobs/job_stream.hpp"
#include "fleetwatt/jobs/replay.hpp"
#include "fleetwatt/jobs/warmup.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/models/predictors/banded_predictor.hpp"
#include "fleetwatt/models/site_predictor.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/sim/engine/job_precheck.hpp"
#include "fleetwatt/sim/fleet/job.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"

namespace fleetwatt::runs {

using sim::Duration;
using sim::Engine;
using sim::Job;
using sim::PlacementPolicy;
using sim::Scheduler;

jobs::RuntimeEstimate runtime_estimate(const models::PowerPredictor& predictor,
                                       const models::GpuHardware& gpu) {
  // `gpu` is copied: the estimate outlives the setup it came from while the workload is built.
  return [&predictor, gpu](const jobs::JobSpec& j) {
    const auto p = j.phases ? *j.phases : predictor.predict(j, gpu);
    const double t = p.epoch_s() * j.epochs;
    // A predictor's parameters can make a time infinite (a factor of 0 that divides it): bad input at the
    // predictor, located at the job's class, rather than a failure of whatever uses the estimate.
    if (!std::isfinite(t))
      throw jobs::ConfigError(j.class_origin, "predictor",
                              fmt::format("predicts a run time of {} s for job {} (class '{}'): check the "
                                          "predictor's parameters",
                                          t, j.id, j.job_class));
    return t;
  };
}

namespace {

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

// The jobs a workload is expected to hold: in all, and those of the warm-up.
struct ExpectedJobs {
  double all = 0.0, warmup = 0.0;
};

// The jobs a workload is expected to hold (explicit jobs, and a generator's or preset's arrivals, window
// and warm-up together), checked before any is drawn: each source is bounded by kMaxExpectedArrivals at its
// table (jobs/job_generator.hpp), but a long continued warm-up at a high rate, or a periodic one's
// copies, add to them. Returns the expectation.
ExpectedJobs check_expected_arrivals(const jobs::WorkloadConfig& w) {
  const double warmup_s = w.warmup_s.value_or(0.0);
  double expected = 0.0, warmup = 0.0;
  auto add = [&](double rate_per_s, double start_s, double end_s) {
    double n = rate_per_s * (end_s - start_s);
    // The copies are walked even when the window is empty: their number is bounded before any is laid.
    const double copies = std::ceil(warmup_s / w.horizon_s);
    if (w.periodic_warmup && start_s == 0.0 && warmup_s > 0.0 && !(copies <= jobs::kMaxWarmupCopies))
      throw jobs::ConfigError(
          w.periodic_where.file.empty() ? w.warmup_where : w.periodic_where, "workload.warmup_arrivals",
          fmt::format("\"periodic\" would repeat the {} s window {:.3g} times to fill warmup_s = {} s, more "
                      "than the {:.0e} a run may lay down: lengthen horizon_s, shorten warmup_s or use "
                      "\"continued\"",
                      w.horizon_s, copies, warmup_s, jobs::kMaxWarmupCopies));
    if (start_s == 0.0 && warmup_s > 0.0) {
      // A periodic warm-up repeats the window's last warmup_s (all of it, `copies` times, when longer).
      const double before =
          w.periodic_warmup ? rate_per_s * std::min(warmup_s, w.horizon_s) * std::ceil(warmup_s / w.horizon_s)
                            : rate_per_s * warmup_s;
      warmup += before;
      n += before;
    }
    expected += n;
  };
  if (w.generator) add(w.generator->mean_rate_per_s, w.generator->start_s, w.generator->end_s);
  if (w.preset) add(w.preset->mean_rate_per_s, w.preset->start_s, w.preset->end_s);
  expected += static_cast<double>(w.jobs.size());
  if (expected > jobs::kMaxExpectedArrivals)
    throw jobs::ConfigError(
        w.warmup_where, "workload.warmup_s",
        fmt::format("{:.3g} jobs expected over the warm-up and the window, more than the {:.0e} a run may "
                    "draw; shorten warmup_s or lower the rate",
                    expected, jobs::kMaxExpectedArrivals));
  return {expected, warmup};
}

// A run that holds its whole job list (a trace, a preset, compare, sweep and Python runs) keeps a JobSpec and
// the engine's Job for every job to the end: they must fit this machine's memory.
void check_memory_need(double jobs, const jobs::WorkloadConfig& w, const PrepareLimits& limits) {
  const double need = jobs * kHeldJobBytes;
  const bool given = limits.max_memory_bytes > 0.0;
  const double have = given ? limits.max_memory_bytes : physical_memory_bytes();
  if (have > 0.0 && need > have)
    throw jobs::ConfigError(
        w.warmup_where, "workload",
        fmt::format("{:.3g} jobs, held to the end of the run, need up to {:.3g} GiB of memory (~{:.0f} bytes "
                    "each), more than {} {:.3g} GiB: lower the rate, shorten horizon_s or warmup_s{}",
                    jobs, need / 1073741824.0, kHeldJobBytes,
                    given ? "the memory allowed," : "this machine's", have / 1073741824.0,
                    given ? ", or allow more (--max-memory)" : ""));
}

// Jobs submitted at or after the horizon never run: say how many, once, so a trace or job list cut short by
// the horizon does not pass unnoticed.
void warn_jobs_after_horizon(const std::vector<jobs::JobSpec>& jobs, const runs::Scenario& scenario) {
  const double horizon_s = scenario.workload.horizon_s;
  const auto late = std::count_if(jobs.begin(), jobs.end(),
                                  [&](const jobs::JobSpec& j) { return j.submit_s >= horizon_s; });
  if (late == 0) return;
  double first = std::numeric_limits<double>::infinity();
  for (const auto& j : jobs)
    if (j.submit_s >= horizon_s) first = std::min(first, j.submit_s);
  scenario.warnings->add(
      fmt::format("{} of {} jobs are submitted at or after the horizon "
                  "(workload.horizon_s = {} s; the first at {} s) and will not run",
                  late, jobs.size(), horizon_s, first));
}

// Each job submitted before the horizon checked as the engine will check it when it draws it, on every GPU
// type (jobs after the horizon are never drawn); a prediction each, so `stop` is polled every few thousand.
void precheck_jobs(const std::vector<jobs::JobSpec>& list, const PreparedRun& r,
                   const std::atomic<bool>* stop) {
  const sim::FleetLayout layout(sim::fleet_groups(r.setup));
  const double horizon_s = r.scenario.workload.horizon_s;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i % 4096 == 4095) core::throw_if_stopped(stop);
    if (list[i].submit_s < horizon_s) sim::precheck_job(list[i], layout, *r.predictor);
  }
}

/// The scenario key a service's option names (serve's keyword, or the scenario's own spelling; a shape's
/// errors at its first key, layers, which every shape has).
std::string service_key(const std::string& option) {
  if (option == "generate_rate") return "arrival_rate_per_s";
  if (option == "model_shape") return "layers";
  return option;
}

/// Each [[workload.service]] played (its errors at its keys), and its power as the engine's load: every GPU
/// of its replicas at the service's mean draw per GPU, interval by interval.
void play_services(PreparedRun& r) {
  const auto groups = sim::fleet_groups(r.setup);
  for (const auto& c : r.scenario.services) {
    PlayedService played;
    try {
      played = play_scenario_service(c.request, c.name);
    } catch (const core::ConfigError& e) {
      const std::string key = service_key(e.field());
      const auto at = c.where.find(key);
      if (at == c.where.end()) throw;
      throw core::ConfigError(at->second, c.prefix + "." + key, e.message());
    }
    sim::ServiceLoad load;
    load.name = c.name;
    for (std::uint32_t g = 0; g < groups.size(); ++g)
      if (groups[g].name == c.group || (c.group.empty() && g == 0)) load.group = g;
    const sim::ServiceConfig& config = played.config;
    load.gpus = static_cast<std::uint32_t>(sim::service_gpus(config));
    load.interval = Duration::from_seconds(config.interval_s);
    load.gpu_W.reserve(played.record.power_W.size());
    for (const double W : played.record.power_W) load.gpu_W.push_back(W / load.gpus);
    load.after_W = sim::engine_idle_W(config) / config.replica.tp;
    load.floor_W = load.after_W;
    load.max_W = config.replica.gpu.tdp_W;
    load.parked_W = config.autoscale.parked_off ? 0.0 : config.replica.gpu.idle_W;
    for (const double active : played.record.replicas_active)
      load.active_share.push_back(active / config.replicas);
    load.absorb = c.absorb;
    r.setup.services.push_back(std::move(load));
    r.services.push_back(std::move(played));
  }
}

/// prepare_run, with the job list built unless `stream` and the workload can be drawn as the run goes.
PreparedRun prepare(runs::Scenario scenario, const RunOverrides& overrides, bool stream,
                    const PrepareLimits& limits) {
  const std::atomic<bool>* stop = limits.stop;
  PreparedRun r;
  r.scenario = std::move(scenario);
  if (overrides.seed) r.scenario.seed = *overrides.seed;
  if (overrides.band) r.scenario.predictor.band = *overrides.band;
  r.setup = engine_setup(r.scenario);
  {
    const models::PredictorConfig config = scenario_predictor_config(r.scenario);
    std::unique_ptr<models::PowerPredictor> predictor =
        models::PredictorRegistry::with_builtins().make(config);
    // Every job corrected to its site's runs of its GPU type (predicted uncorrected by this kind, as
    // `validate --site` and `predict --site` do), then at the scenario's band.
    if (auto site = scenario_site_correction(r.scenario, config.kind)) {
      const double limit =
          config.params.has("power_limit_w") ? config.params.get_double("power_limit_w", 0.0) : 0.0;
      predictor = std::make_unique<models::SitePredictor>(std::move(predictor), std::move(site), limit);
    }
    r.predictor = models::at_band(std::move(predictor), r.scenario.predictor.band);
  }
  // The [scheduler] section is checked against the policies' declarations before any job is built.
  check_scheduler_config(r.scenario.scheduler);
  play_services(r);
  // Explicit jobs are known now: a bad one (a zoo model without dataset_samples, a length the clock cannot
  // hold) is refused before any arrival is drawn or predicted. Jobs after the horizon are never drawn.
  {
    const sim::FleetLayout layout(sim::fleet_groups(r.setup));
    precheck_jobs(r.scenario.workload.jobs, r, stop);
  }
  const auto estimate = runtime_estimate(*r.predictor, r.setup.gpu);
  // The warm-up, when the scenario leaves it out: long enough for generated jobs to fill the fleet.
  auto& workload = r.scenario.workload;
  if (!workload.warmup_s) {
    const double warmup_s = jobs::default_warmup_s(workload, estimate);
    if (!(warmup_s <= core::kMaxInputSeconds))
      throw jobs::ConfigError(
          workload.warmup_where, "workload.warmup_s",
          fmt::format("the default warm-up, 2 x the longest job the generator can draw, would be {:.3g} s, "
                      "beyond the {:.0e} s a run can simulate: lower the mix's epochs or dataset_samples, or "
                      "give warmup_s",
                      warmup_s, core::kMaxInputSeconds));
    workload.warmup_s = warmup_s;
    r.setup.warmup = Duration::from_seconds(*workload.warmup_s);
  }
  const ExpectedJobs expected = check_expected_arrivals(workload);
  // Trace and preset jobs match their recorded run times to this predictor's estimate on the reference type;
  // the engine matches them again on the type each one starts on.
  if (stream && jobs::streamable(r.scenario.workload)) {
    // Drawn as the run goes and dropped when written: memory follows the running jobs, not their number.
    r.streamed = true;
    r.job_count = static_cast<std::uint64_t>(std::llround(expected.all));
    r.held_job_count = static_cast<std::uint64_t>(std::llround(expected.warmup));
    check_memory_need(expected.warmup, workload, limits);
    // The queue may grow to fill what the limit (or this machine) leaves.
    limit_held_jobs(r, limits.max_memory_bytes > 0.0 ? limits.max_memory_bytes : physical_memory_bytes());
    warn_jobs_after_horizon(r.scenario.workload.jobs, r.scenario);
    return r;
  }
  check_memory_need(expected.all, workload, limits);
  r.jobs = jobs::build_scenario_workload(r.scenario.workload, r.scenario.seed,
                                         static_cast<std::uint32_t>(r.scenario.fleet.largest_group_gpus()),
                                         estimate, stop);
  // Trace, preset and generated jobs, matched now, are checked as the engine will draw them: a bad one is
  // refused before the run rather than when the clock reaches it. A list of explicit jobs alone (a large
  // jobs_csv) was checked whole above.
  if (workload.generator || workload.trace || workload.preset) precheck_jobs(r.jobs, r, stop);
  r.job_count = r.jobs.size();
  warn_jobs_after_horizon(r.jobs, r.scenario);
  return r;
}
}  // namespace

PreparedRun prepare_run(runs::Scenario scenario, const RunOverrides& overrides, const PrepareLimits& limits) {
  return prepare(std::move(scenario), overrides, false, limits);
}

PreparedRun prepare_streamed_run(runs::Scenario scenario, const RunOverrides& overrides,
                                 const PrepareLimits& limits) {
  return prepare(std::move(scenario), overrides, true, limits);
}

std::unique_ptr<jobs::JobSource> job_source(const PreparedRun& run, const std::atomic<bool>* stop) {
  if (run.streamed)
    return std::make_unique<jobs::ScenarioJobStream>(run.scenario.workload, run.scenario.seed, stop);
  return std::make_unique<jobs::JobList>(run.jobs);
}

std::unique_ptr<jobs::JobSource> take_job_source(PreparedRun& run, const std::atomic<bool>* stop) {
  if (run.streamed) {
    // The explicit jobs (a 30,000-row jobs_csv) are handed over, not copied: nothing reads them after this.
    std::vector<jobs::JobSpec> explicit_jobs = std::move(run.scenario.workload.jobs);
    run.scenario.workload.jobs.clear();
    return std::make_unique<jobs::ScenarioJobStream>(run.scenario.workload, std::move(explicit_jobs),
                                                     run.scenario.seed, stop);
  }
  return std::make_unique<jobs::JobList>(std::move(run.jobs));
}

PreparedRun prepare_run(const std::filesystem::path& scenario_file, const RunOverrides& overrides) {
  return prepare_run(runs::load_scenario(scenario_file), overrides);
}

std::unique_ptr<Engine> make_engine_taking_jobs(PreparedRun& run, const std::atomic<bool>* stop) {
  return std::make_unique<Engine>(run.setup, take_job_source(run, stop), *run.predictor,
                                  make_scheduler(run.scenario.scheduler),
                                  make_placement(run.scenario.scheduler));
}

std::unique_ptr<Engine> make_engine(const PreparedRun& run) {
  return make_engine(run, run.scenario.scheduler);
}

std::unique_ptr<Engine> make_engine(const PreparedRun& run, const sim::SchedulerConfig& scheduler) {
  return make_engine(run, make_scheduler(scheduler), make_placement(scheduler));
}

std::unique_ptr<Engine> make_engine(const PreparedRun& run, std::unique_ptr<Scheduler> scheduler,
                                    std::unique_ptr<PlacementPolicy> placement) {
  return std::make_unique<Engine>(run.setup, job_source(run), *run.predictor, std::move(scheduler),
                                  std::move(placement));
}

}  // namespace fleetwatt::runs
