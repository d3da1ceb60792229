// Running several scheduling policies on one identical workload and tabulating what each costs: job times,
// utilisation, IT and facility energy, peak and p95 facility power, carbon and electricity cost. Carbon
// and cost integrate the facility power exactly against the grid signals of the setup (step interpolation),
// per facility interval and in total.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/results/grid_metrics.hpp"
#include "fleetwatt/results/power_quality.hpp"
#include "fleetwatt/results/wall_clock.hpp"
#include "fleetwatt/sim/cluster.hpp"
#include "fleetwatt/sim/engine.hpp"
#include "fleetwatt/sim/run_assembly.hpp"
#include "fleetwatt/workloads/grid_signal.hpp"
#include "fleetwatt/workloads/scenario.hpp"

namespace fleetwatt::results {

/// One policy's row of the comparison, plus what the HDF5 file keeps of its run.
struct ComparisonRow {
  std::string policy;
  std::uint64_t jobs_total = 0;
  std::uint64_t jobs_done = 0;
  double jct_mean_s = 0, jct_p50_s = 0, jct_p99_s = 0;  ///< completion time (end - submit) of finished jobs
  double wait_mean_s = 0;                               ///< start - submit of started jobs
  double makespan_s = 0;                                ///< last finish - first submit
  double gpu_util = 0;
  double it_energy_J = 0, facility_energy_J = 0;
  double series_energy_J = 0;  ///< sum of the facility series (interval mean x interval length)
  double peak_facility_W = 0;  ///< highest level held for a positive time
  double p95_facility_W = 0;   ///< 95th percentile of the facility series
  double carbon_kg = 0;
  double cost = 0;            ///< in the price signal's currency (0 without one)
  double lost_gpu_hours = 0;  ///< GPU time paused (demand response) or lost to GPU caps (slower clocks)
  std::uint64_t deadline_misses = 0;  ///< deferrable jobs finished after (or not by) their deadline
  std::vector<std::pair<std::string, double>> metrics;  ///< the policy's own figures
  double smoothing_energy_J = 0;                        ///< [smoothing]'s extra GPU energy (0: none)
  double wall_s = 0;
  // Kept for the HDF5 file.
  double facility_interval_s = 1.0;
  GridMetrics grid;      ///< grid metrics of the facility series, as a run's /summary and /grid have them
  PowerQuality quality;  ///< power-quality figures of the facility series, as a run's /power_quality
  WallClock clock;       ///< the scenario's [output] start
  std::string start_text;
  std::vector<double> facility_t_s, facility_W;
  std::vector<double> facility_carbon_kg, facility_cost;  ///< per facility interval
  std::vector<sim::Job> jobs;
};

/// Runs one policy (by registry name) on the prepared run's jobs. The scenario's [scheduler] is the base
/// configuration (placement, carbon signal, per-policy [scheduler.NAME] parameters); the run's setup may be
/// changed before (compare keeps no node series and may set its own facility interval). A raised `stop`
/// ends the run (sim::Interrupted).
[[nodiscard]] ComparisonRow run_policy(const sim::PreparedRun& run, const std::string& policy,
                                       const std::atomic<bool>* stop = nullptr);
/// The same with a policy object built outside the registry (a Python policy), whose row is named `name`,
/// with the scenario's placement; `before_run` (if set) sees the engine before it runs.
[[nodiscard]] ComparisonRow run_policy(const sim::PreparedRun& run, const std::string& name,
                                       std::unique_ptr<sim::Scheduler> scheduler,
                                       const std::function<void(sim::Engine&)>& before_run = {},
                                       const std::atomic<bool>* stop = nullptr);

/// Runs every policy, up to `threads` at a time; rows in the order of `policies`. A raised `stop` ends
/// every run (sim::Interrupted, after the threads have returned).
[[nodiscard]] std::vector<ComparisonRow> compare_policies(const sim::PreparedRun& run,
                                                          const std::vector<std::string>& policies,
                                                          unsigned threads,
                                                          const std::atomic<bool>* stop = nullptr);

/// The column names of the comparison table, in order.
[[nodiscard]] const std::vector<std::string>& comparison_columns();
/// The table as CSV (header + one row per policy).
void write_comparison_csv(std::ostream& out, const std::vector<ComparisonRow>& rows);
/// The table as aligned text for a terminal.
[[nodiscard]] std::string format_comparison(const std::vector<ComparisonRow>& rows);
/// One HDF5 file: /comparison (one dataset per column) and /policies/<name>/{facility, summary, grid, jobs}
/// per policy; the facility series under the names of a run's file (time_s, facility_power_W).
void write_comparison_h5(const std::filesystem::path& file, const std::vector<ComparisonRow>& rows,
                         const std::string& scenario_text, std::uint32_t gpus_per_node);
/// The same, with job nodes from the cluster's layout (fleets of several node groups).
void write_comparison_h5(const std::filesystem::path& file, const std::vector<ComparisonRow>& rows,
                         const std::string& scenario_text, const sim::Cluster& cluster);

}  // namespace fleetwatt::results
