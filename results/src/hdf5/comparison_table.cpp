// The comparison table of several policies' runs: its columns, CSV, aligned text and the HDF5 file that keeps
// each policy's series, summary and jobs.
#include "fleetwatt/results/hdf5/comparison_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "fleetwatt/core/text_output.hpp"
#include "hdf5_commit.hpp"
#include "hdf5_datasets.hpp"

namespace fleetwatt::results {

const std::vector<std::string>& comparison_columns() {
  static const std::vector<std::string> c{
      "policy", "jobs_done", "jct_mean_s", "jct_p50_s", "jct_p99_s", "wait_mean_s", "makespan_s", "gpu_util",
      "it_energy_J", "facility_energy_J", "peak_facility_W", "p95_facility_W", "carbon_kg", "cost",
      "lost_gpu_hours", "deadline_misses", "series_energy_J", "jobs_total", "wall_s",
      // Power quality (docs/results.md, /power_quality), after the older columns so their positions stay.
      "ramp_up_1s_W", "ramp_down_1s_W", "ramp_up_1min_W", "ramp_down_1min_W", "ramp_up_15min_W",
      "ramp_down_15min_W", "dynamic_range_1s_W", "dynamic_range_1min_W", "band_share_0p01_0p1Hz",
      "band_share_0p1_1Hz", "band_share_1_5Hz", "band_share_5_20Hz", "dominant_frequency_Hz",
      // Band energies (variance in the band) and [smoothing]'s extra energy, after those.
      "band_energy_0p01_0p1Hz_W2", "band_energy_0p1_1Hz_W2", "band_energy_1_5Hz_W2", "band_energy_5_20Hz_W2",
      "smoothing_energy_J"};
  return c;
}

namespace {

std::vector<double> numbers_of(const ComparisonRow& r) {
  return {static_cast<double>(r.jobs_done),
          r.jct_mean_s,
          r.jct_p50_s,
          r.jct_p99_s,
          r.wait_mean_s,
          r.makespan_s,
          r.gpu_util,
          r.it_energy_J,
          r.facility_energy_J,
          r.peak_facility_W,
          r.p95_facility_W,
          r.carbon_kg,
          r.cost,
          r.lost_gpu_hours,
          static_cast<double>(r.deadline_misses),
          r.series_energy_J,
          static_cast<double>(r.jobs_total),
          r.wall_s,
          r.quality.ramp_up_W[0],
          r.quality.ramp_down_W[0],
          r.quality.ramp_up_W[1],
          r.quality.ramp_down_W[1],
          r.quality.ramp_up_W[2],
          r.quality.ramp_down_W[2],
          r.quality.dynamic_range_W[0],
          r.quality.dynamic_range_W[1],
          r.quality.band_share[0],
          r.quality.band_share[1],
          r.quality.band_share[2],
          r.quality.band_share[3],
          r.quality.dominant_frequency_Hz,
          r.quality.band_energy_W2[0],
          r.quality.band_energy_W2[1],
          r.quality.band_energy_W2[2],
          r.quality.band_energy_W2[3],
          r.smoothing_energy_J};
}

}  // namespace

void write_comparison_csv(std::ostream& out, const std::vector<ComparisonRow>& rows) {
  const auto& cols = comparison_columns();
  for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << cols[i];
  out << '\n';
  for (const auto& r : rows) {
    out << r.policy;
    for (double v : numbers_of(r)) out << ',' << fmt::format("{}", v);
    out << '\n';
  }
}

/// A figure with `decimals`, or "–" where it is not available (NaN: e.g. no band below Nyquist, a
/// window shorter than the interval): never a number.
static std::string or_dash(double v, int decimals) {
  return std::isnan(v) ? std::string("\u2013") : fmt::format("{:.{}f}", v, decimals);
}

std::string format_comparison(const std::vector<ComparisonRow>& rows) {
  std::string out = fmt::format(
      "{:<12}{:>7}{:>11}{:>10}{:>11}{:>10}{:>11}{:>7}{:>13}{:>11}{:>11}{:>10}{:>10}{:>9}{:>10}{:>9}\n",
      "policy", "done", "jct_mean", "jct_p50", "jct_p99", "wait", "makespan", "util", "facility", "peak",
      "p95", "carbon", "cost", "lost", "ramp_1min", "dom_f");
  out += fmt::format(
      "{:<12}{:>7}{:>11}{:>10}{:>11}{:>10}{:>11}{:>7}{:>13}{:>11}{:>11}{:>10}{:>10}{:>9}{:>10}{:>9}\n", "",
      "", "h", "h", "h", "h", "h", "%", "MWh", "kW", "kW", "t", "", "GPU-h", "kW", "mHz");
  for (const auto& r : rows)
    out += fmt::format(
        "{:<12}{:>7}{:>11.2f}{:>10.2f}{:>11.2f}{:>10.2f}{:>11.1f}{:>7.1f}{:>13.3f}{:>11.1f}{:>11.1f}{:>10.3f}"
        "{:>10.2f}"
        "{:>9.1f}{:>10}{:>9}\n",
        r.policy, r.jobs_done, r.jct_mean_s / 3600, r.jct_p50_s / 3600, r.jct_p99_s / 3600,
        r.wait_mean_s / 3600, r.makespan_s / 3600, 100 * r.gpu_util, r.facility_energy_J / 3.6e9,
        r.peak_facility_W / 1e3, r.p95_facility_W / 1e3, r.carbon_kg / 1e3, r.cost, r.lost_gpu_hours,
        or_dash(std::fmax(r.quality.ramp_up_W[1], r.quality.ramp_down_W[1]) / 1e3, 1),
        or_dash(1e3 * r.quality.dominant_frequency_Hz, 2));
  return out;
}

static void write_comparison_file(const std::filesystem::path& file, const std::vector<ComparisonRow>& rows,
                                  const std::string& scenario_text,
                                  const std::function<std::int64_t(sim::GpuIndex)>& node_of) {
  // The shared writer path: HDF5 silenced, the file closed once, nothing left on failure (a full disk once
  // crashed the process at exit here).
  write_hdf5_file(file, "comparison", [&](H5::H5File& f) {
    H5::Group root = f.openGroup("/");
    write_string_attribute(root, "scenario", scenario_text);
    // As a run's file: where simulated time 0 is on the wall clock (`fleetwatt export` reads it).
    const WallClock clock = rows.empty() ? WallClock{} : rows.front().clock;
    write_string_attribute(root, "start",
                           rows.empty() ? std::string("2026-01-01T00:00:00Z") : rows.front().start_text);
    write_int_attribute(root, "start_unix_s", clock.start_unix_s);
    write_int_attribute(root, "start_utc_offset_s", clock.utc_offset_s);
    H5::Group table = f.createGroup("/comparison");
    std::vector<std::string> names;
    for (const auto& r : rows) names.push_back(r.policy);
    write_strings(table, "policy", names, "text");
    const auto& cols = comparison_columns();
    static const std::vector<std::string> units{
        "1",     "s", "s", "s", "s",  "s",   "1",   "J",   "J",   "W", "W", "kg", "price-signal currency",
        "GPU-h", "1", "J", "1", "s",  "W",   "W",   "W",   "W",   "W", "W", "W",  "W",
        "1",     "1", "1", "1", "Hz", "W^2", "W^2", "W^2", "W^2", "J"};
    for (std::size_t c = 1; c < cols.size(); ++c) {
      // Counts are integer datasets.
      if (cols[c] == "jobs_done" || cols[c] == "jobs_total" || cols[c] == "deadline_misses") {
        std::vector<std::int64_t> v;
        for (const auto& r : rows) v.push_back(static_cast<std::int64_t>(numbers_of(r)[c - 1]));
        write_vector(table, cols[c], v, units[c - 1]);
        continue;
      }
      std::vector<double> v;
      for (const auto& r : rows) v.push_back(numbers_of(r)[c - 1]);
      write_vector(table, cols[c], v, units[c - 1]);
    }
    H5::Group policies = f.createGroup("/policies");
    for (const auto& r : rows) {
      H5::Group g = policies.createGroup(r.policy);
      for (std::size_t c = 1; c < cols.size(); ++c) write_double_attribute(g, cols[c], numbers_of(r)[c - 1]);
      for (const auto& [k, v] : r.metrics) write_double_attribute(g, k, v);
      // The dataset names and meaning of a run's /facility, so one reader serves both kinds of file.
      H5::Group fac = g.createGroup("facility");
      write_double_attribute(fac, "interval_s", r.facility_interval_s);
      write_vector(fac, "time_s", r.facility_t_s, "s (interval start)");
      write_vector(fac, "facility_power_W", r.facility_W, "W (interval mean)");
      if (!r.grid_import_W.empty())
        write_vector(fac, "grid_import_W", r.grid_import_W, "W (interval mean, after the batteries)");
      const char* meter = r.grid_import_W.empty() ? "facility_power_W" : "grid_import_W";
      write_vector(fac, "carbon_kg", r.facility_carbon_kg, "kg (over the interval)");
      write_vector(fac, "cost", r.facility_cost, "currency of the [grid.price] signal (over the interval)");
      H5::Group summary = g.createGroup("summary");
      write_scalar(summary, "horizon_s", r.grid.horizon_s, "s");
      H5::Group grid = g.createGroup("grid");
      write_grid_metrics(summary, grid, r.grid, meter);
      H5::Group quality = g.createGroup("power_quality");
      write_power_quality(quality, r.quality, meter);
      H5::Group jobs = g.createGroup("jobs");
      write_job_datasets(jobs, r.jobs, node_of);
    }
  });
}

void write_comparison_h5(const std::filesystem::path& file, const std::vector<ComparisonRow>& rows,
                         const std::string& scenario_text, std::uint32_t gpus_per_node) {
  write_comparison_file(file, rows, scenario_text,
                        [gpus_per_node](sim::GpuIndex g) { return std::int64_t{g / gpus_per_node}; });
}

void write_comparison_h5(const std::filesystem::path& file, const std::vector<ComparisonRow>& rows,
                         const std::string& scenario_text, const sim::Cluster& cluster) {
  write_comparison_file(file, rows, scenario_text,
                        [&cluster](sim::GpuIndex g) { return std::int64_t{cluster.node_of(g)}; });
}

}  // namespace fleetwatt::results
