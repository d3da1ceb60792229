// Policy comparison: one engine per policy on copies of the same jobs, and the row of figures each run gives
// (results/hdf5/comparison_table.hpp writes the table).
#include "fleetwatt/runs/policy_comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <iterator>
#include <mutex>
#include <numeric>
#include <thread>

#include "fleetwatt/jobs/trace.hpp"
#include "fleetwatt/results/metrics/job_times.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"

namespace fleetwatt::runs {

using results::ComparisonRow;
using results::grid_metrics;

namespace {

// Keeps the facility series (interval means) of one run, and the grid import when batteries report it.
class FacilitySeries final : public sim::PowerSink {
 public:
  void facility_sample(sim::Time start, double, double facility_W, double) override {
    t.push_back(start.seconds());
    w.push_back(facility_W);
  }
  void node_samples(sim::Time, std::span<const double>) override {}
  void gpu_change(sim::Time, std::span<const sim::GpuIndex>, double) override {}
  [[nodiscard]] bool wants_gpu_changes() const override { return false; }
  void grid_sample(sim::Time, double carbon_kg, double cost) override {
    carbon.push_back(carbon_kg);
    price.push_back(cost);
  }
  // Batteries report each interval's import right after its facility sample.
  void battery_sample(sim::Time, double import_W, double, double) override { import.push_back(import_W); }
  std::vector<double> t, w, carbon, price, import;
};

}  // namespace

namespace {

/// Runs the engine and tabulates its run as the row named `policy`.
ComparisonRow row_of_run(const runs::PreparedRun& run, sim::Engine& engine, const std::string& policy,
                         const std::atomic<bool>* stop) {
  FacilitySeries series;
  engine.attach(&series);
  engine.run({}, 200000, stop);

  ComparisonRow r;
  r.policy = policy;
  const auto& s = engine.summary();
  r.jobs_total = s.jobs_total;
  r.jobs_done = s.jobs_finished;
  r.gpu_util = s.gpu_utilisation;
  r.it_energy_J = s.it_energy_J;
  r.facility_energy_J = s.facility_energy_J;
  r.peak_facility_W = s.peak_facility_W;
  r.wall_s = s.wall_s;
  r.carbon_kg = s.carbon_kg;  // the engine's grid meter: the sums of the carbon and cost series
  r.cost = s.cost;
  r.smoothing_energy_J = s.smoothing_energy_J;
  std::vector<double> jct;
  results::JobTimes times;
  double first_submit = std::numeric_limits<double>::infinity(), last_end = 0.0, lost = 0.0;
  for (const auto& j : engine.jobs()) {
    first_submit = std::min(first_submit, j.submit.seconds());
    times.add(j);
    if (j.state == sim::JobState::finished) {
      jct.push_back((j.end - j.submit).seconds());
      last_end = std::max(last_end, j.end.seconds());
    }
    lost += j.controls.paused_gpu_seconds + j.controls.capped_gpu_seconds;
    // A miss: finished after its deadline, or unfinished at a horizon past its deadline.
    if (j.spec.deadline_s && j.spec.deferrable &&
        (j.state == sim::JobState::finished ? j.end.seconds() > *j.spec.deadline_s + 1e-9
                                            : s.horizon_s > *j.spec.deadline_s))
      ++r.deadline_misses;
  }
  // The same two figures a run's /summary and a sweep's table give (0 here when no job counts).
  r.jct_mean_s = times.finished() ? times.jct_mean_s() : 0.0;
  r.jct_p50_s = jobs::quantile(jct, 0.50);
  r.jct_p99_s = jobs::quantile(jct, 0.99);
  r.wait_mean_s = times.started() ? times.wait_mean_s() : 0.0;
  r.makespan_s = jct.empty() ? 0.0 : last_end - first_submit;
  r.lost_gpu_hours = lost / 3600.0;
  r.metrics = engine.scheduler_metrics();
  // The series' own energy: each interval mean times its length (the last interval ends at the horizon).
  for (std::size_t i = 0; i < series.t.size(); ++i) {
    const double end = i + 1 < series.t.size() ? series.t[i + 1] : s.horizon_s;
    r.series_energy_J += series.w[i] * (end - series.t[i]);
  }
  // The meter: grid import when batteries report it, as a run's /summary, /grid and /power_quality.
  const std::vector<double>& meter = series.import.empty() ? series.w : series.import;
  std::vector<double> w = meter;
  r.p95_facility_W = jobs::quantile(w, 0.95);
  r.facility_interval_s = run.setup.facility_interval.seconds();
  r.clock = {run.scenario.output.start_unix_s, run.scenario.output.start_utc_offset_s};
  r.start_text = run.scenario.output.start;
  r.grid =
      grid_metrics(meter, {run.setup.facility_interval.ns(), r.clock, run.scenario.grid.system_peak_hours},
                   core::Duration::from_seconds(s.horizon_s).ns());
  r.quality = power_quality(meter, run.setup.facility_interval.ns(), r.clock,
                            core::Duration::from_seconds(s.horizon_s).ns());
  r.grid_import_W = std::move(series.import);
  r.facility_t_s = std::move(series.t);
  r.facility_W = std::move(series.w);
  r.facility_carbon_kg = std::move(series.carbon);
  r.facility_cost = std::move(series.price);
  r.jobs.assign(engine.jobs().begin(), engine.jobs().end());
  return r;
}

}  // namespace

ComparisonRow run_policy(const runs::PreparedRun& run, const std::string& policy,
                         const std::atomic<bool>* stop) {
  const auto engine = runs::make_engine(run, sim::with_policy(run.scenario.scheduler, policy));
  return row_of_run(run, *engine, policy, stop);
}

ComparisonRow run_policy(const runs::PreparedRun& run, const std::string& name,
                         std::unique_ptr<sim::Scheduler> scheduler,
                         const std::function<void(sim::Engine&)>& before_run, const std::atomic<bool>* stop) {
  const auto engine =
      runs::make_engine(run, std::move(scheduler), sim::make_placement(run.scenario.scheduler));
  if (before_run) before_run(*engine);
  return row_of_run(run, *engine, name, stop);
}

std::vector<ComparisonRow> compare_policies(const runs::PreparedRun& run,
                                            const std::vector<std::string>& policies, unsigned threads,
                                            const std::atomic<bool>* stop) {
  std::vector<ComparisonRow> rows(policies.size());
  std::vector<std::exception_ptr> errors(policies.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < policies.size();) {
      try {
        rows[i] = run_policy(run, policies[i], stop);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(policies.size())));
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < n; ++k) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return rows;
}

Comparison compare_with_defaults(runs::PreparedRun& run, const std::vector<std::string>& policies,
                                 bool leave_out_unrunnable, unsigned threads, const std::atomic<bool>* stop,
                                 const std::function<void()>& built) {
  auto& scheduler = run.scenario.scheduler;
  // A missing power cap is the one parameter compare derives; any other unbuildable policy is left out.
  const auto cap_missing = [&](const std::string& p) {
    if (p != "powercap") return false;
    const auto given = [](const core::ParamSet& s) { return s.has("cap_w") || s.has("cap_W"); };
    if (p == scheduler.policy) return !given(scheduler.params);
    const auto table = scheduler.policy_params.find(p);
    return table == scheduler.policy_params.end() || !given(table->second);
  };
  Comparison out;
  std::vector<std::string> now, derived;  // run at once; run after the FIFO row is known
  for (const auto& p : policies) {
    if (cap_missing(p)) {
      derived.push_back(p);
      continue;
    }
    try {
      (void)sim::make_scheduler(sim::with_policy(scheduler, p));
      now.push_back(p);
    } catch (const core::ConfigError& e) {
      if (!leave_out_unrunnable) throw;
      out.notes.push_back(fmt::format("{}: left out: {}", p, e.message()));
    }
  }
  if (built) built();
  const bool fifo_shown = std::find(now.begin(), now.end(), "fifo") != now.end();
  std::vector<std::string> first = now;
  if (!derived.empty() && !fifo_shown) first.push_back("fifo");
  std::vector<ComparisonRow> rows = compare_policies(run, first, threads, stop);
  if (!derived.empty()) {
    const auto fifo = std::find(first.begin(), first.end(), "fifo") - first.begin();
    const double fifo_peak_W = rows[static_cast<std::size_t>(fifo)].peak_facility_W;
    const double cap_W = kDerivedPowerCapShare * fifo_peak_W;
    if (!fifo_shown) rows.erase(rows.begin() + fifo);
    for (const auto& p : derived) {
      auto& params = p == scheduler.policy ? scheduler.params : scheduler.policy_params[p];
      if (params.section().empty()) params.set_section("scheduler." + p);
      params.set("cap_w", core::ParamValue{cap_W, {}});
      (void)sim::make_scheduler(sim::with_policy(scheduler, p));
      out.notes.push_back(
          fmt::format("{}: cap_w = {:.1f} kW, derived as {:g} % of a FIFO run's peak facility "
                      "power ({:.1f} kW): the scenario gives no [scheduler.{}] cap_w",
                      p, cap_W / 1e3, 100.0 * kDerivedPowerCapShare, fifo_peak_W / 1e3, p));
    }
    auto more = compare_policies(run, derived, threads, stop);
    std::move(more.begin(), more.end(), std::back_inserter(rows));
    now.insert(now.end(), derived.begin(), derived.end());
  }
  // The rows in the order asked, those left out dropped.
  for (const auto& p : policies) {
    const auto at = std::find(now.begin(), now.end(), p);
    if (at != now.end()) out.rows.push_back(std::move(rows[static_cast<std::size_t>(at - now.begin())]));
  }
  if (!out.rows.empty() && !out.rows.front().grid_import_W.empty())
    out.notes.emplace_back(
        "meter: grid import (batteries): p95, the ramps and power-quality figures are of the import the "
        "utility sees, as carbon and cost are; peak and energy are the facility's demand");
  return out;
}

}  // namespace fleetwatt::runs
