// The comparison of several policies' runs on one workload as a table: one row per policy (job times,
// utilisation, energy, peak and p95 facility power, carbon, cost, the policy's own figures) and what the
// HDF5 file keeps of each run. runs/policy_comparison.hpp runs the engines that fill the rows.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "fleetwatt/results/metrics/grid_metrics.hpp"
#include "fleetwatt/results/metrics/power_quality.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"
#include "fleetwatt/sim/fleet/job.hpp"

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
  double p95_facility_W = 0;   ///< 95th percentile of the meter's series (grid import with batteries)
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
  /// With batteries, what the utility's meter reads per interval (empty without them): the grid metrics,
  /// power-quality figures and p95 are of this series then, as a run's are.
  std::vector<double> grid_import_W;
  std::vector<double> facility_carbon_kg, facility_cost;  ///< per facility interval
  std::vector<sim::Job> jobs;
};

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
