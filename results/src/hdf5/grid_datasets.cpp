// The grid metrics as HDF5 datasets: scalars in /summary beside the run's totals, curves in /grid. One place,
// so `run` and `compare` files name them alike.
#include "hdf5_datasets.hpp"

#include <fmt/format.h>

namespace fleetwatt::results {

namespace {
void write_window(H5::Group& g, const std::string& width, const WindowStats& w, bool peak) {
  if (peak) {
    write_scalar(g, "peak_" + width + "_W", w.peak_W,
                 "W: highest mean over a complete clock-aligned " + width + " window (NaN: none)");
    write_scalar(g, "peak_" + width + "_time_s", w.peak_time_s, "s: start of that window");
  }
  write_scalar(
      g, "ramp_up_" + width + "_W", w.ramp_up_W,
      "W: largest rise between the means of consecutive " + width + " windows (NaN: fewer than two)");
  write_scalar(g, "ramp_up_" + width + "_time_s", w.ramp_up_time_s, "s: start of the later window");
  write_scalar(g, "ramp_down_" + width + "_W", w.ramp_down_W,
               "W: largest fall between the means of consecutive " + width + " windows, positive");
  write_scalar(g, "ramp_down_" + width + "_time_s", w.ramp_down_time_s, "s: start of the later window");
}
}  // namespace

void write_grid_metrics(H5::Group& summary, H5::Group& grid, const GridMetrics& m, std::string_view meter) {
  const std::string series = fmt::format("/facility/{}", meter);
  write_string_attribute(summary, "meter", series);
  write_scalar(summary, "peak_facility_time_s", m.peak_time_s,
               "s: start of the facility interval with the highest mean (the first, if several)");
  write_window(summary, "15min", m.quarter_hour, true);
  write_window(summary, "1h", m.hour, true);
  write_window(summary, "1min", m.minute, false);
  write_scalar(summary, "load_factor", m.load_factor,
               "1: mean / highest interval mean of the meter's series (the attribute meter)");
  write_scalar(summary, "facility_energy_per_day_J", m.energy_per_day_J,
               "J: facility energy / (horizon in days)");
  if (!m.system_peak_hours.empty()) {
    write_scalar(summary, "coincident_peak_max_W", m.coincident_peak_max_W,
                 "W: highest facility mean over a complete clock hour of [grid] system_peak_hours");
    write_scalar(summary, "coincident_peak_time_s", m.coincident_peak_time_s, "s: start of that hour");
    write_scalar(summary, "coincident_peak_mean_W", m.coincident_peak_mean_W,
                 "W: mean facility power over those hours");
    write_scalar(summary, "coincident_peak_hours", static_cast<std::int64_t>(m.coincident_hours),
                 "1: complete clock hours of the run in [grid] system_peak_hours");
    std::vector<std::int64_t> hours(m.system_peak_hours.begin(), m.system_peak_hours.end());
    write_vector(grid, "system_peak_hours", hours, "h: hours of the day on the clock of [output] start");
  }
  std::vector<double> kw;
  std::vector<std::int64_t> percent;
  for (std::size_t k = 0; k < m.load_duration_W.size(); ++k) {
    kw.push_back(m.load_duration_W[k] / 1e3);
    percent.push_back(static_cast<std::int64_t>(k));
  }
  write_vector(grid, "load_duration_kW", kw,
               "kW: value k is the highest facility power (interval means) drawn during at least k % of the "
               "horizon; k = 0 is the peak interval mean, k = 100 the lowest");
  write_vector(grid, "load_duration_percent", percent, "%: the k of each load_duration_kW value");
  write_vector(grid, "day_start_s", m.day_start_s,
               "s: start of each clock day the run touches (0 for the first)");
  write_vector(grid, "day_energy_J", m.day_energy_J,
               "J: facility energy in that day (first and last may be partial)");
  write_string_attribute(grid, "meter", series);
  write_string_attribute(
      grid, "description",
      fmt::format("grid metrics of {}; windows are aligned to the clock of the root attribute "
                  "`start` (docs/results.md, Result file)",
                  series));
}

}  // namespace fleetwatt::results
