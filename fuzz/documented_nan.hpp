// The datasets of a result file that may hold NaN: docs/results.md, "Result file (HDF5)", documents each as
// NaN when its figure is not available. Nothing else may; these may hold NaN but not inf. One list for the
// finite-results test (tests/tools/cli_finite_results_test.cpp) and the generated scenarios
// (generated_run.hpp), so a newly documented NaN is added once.
#pragma once

#include <set>
#include <string>

namespace fleetwatt::fuzz {

inline const std::set<std::string>& documented_nan() {
  static const std::set<std::string> names = {
      "/jobs/start_s",             // never started by the horizon
      "/jobs/end_s",               // not finished by the horizon
      "/jobs/step_s",              // a job drawn by epochs has no step period
      "/jobs/recorded_runtime_s",  // no recorded run time (not from a trace)
      "/jobs/limit_s",             // no run-time limit
      "/summary/wait_mean_s",      // no job started
      "/summary/jct_mean_s",       // no job finished
      // No complete clock-aligned 15-min / 1-h window in the run; ramps: fewer than two complete windows.
      "/summary/peak_15min_W",
      "/summary/peak_15min_time_s",
      "/summary/peak_1h_W",
      "/summary/peak_1h_time_s",
      "/summary/ramp_up_1min_W",
      "/summary/ramp_up_1min_time_s",
      "/summary/ramp_down_1min_W",
      "/summary/ramp_down_1min_time_s",
      "/summary/ramp_up_15min_W",
      "/summary/ramp_up_15min_time_s",
      "/summary/ramp_down_15min_W",
      "/summary/ramp_down_15min_time_s",
      "/summary/ramp_up_1h_W",
      "/summary/ramp_up_1h_time_s",
      "/summary/ramp_down_1h_W",
      "/summary/ramp_down_1h_time_s",
      // [grid] system_peak_hours: no such complete hour in the run.
      "/summary/coincident_peak_max_W",
      "/summary/coincident_peak_mean_W",
      "/summary/coincident_peak_time_s",
      // The metered power is 0 throughout (no peak to divide by).
      "/summary/load_factor",
      // A window shorter than facility_interval_s (ramps), or holding fewer than two intervals (range).
      "/power_quality/ramp_up_1s_MW",
      "/power_quality/ramp_up_1min_MW",
      "/power_quality/ramp_up_15min_MW",
      "/power_quality/ramp_down_1s_MW",
      "/power_quality/ramp_down_1min_MW",
      "/power_quality/ramp_down_15min_MW",
      "/power_quality/dynamic_range_1s_MW",
      "/power_quality/dynamic_range_1min_MW",
      // A band at or above Nyquist; no spectrum, or a series that does not fluctuate.
      "/power_quality/band_share_0p01_0p1Hz",
      "/power_quality/band_share_0p1_1Hz",
      "/power_quality/band_share_1_5Hz",
      "/power_quality/band_share_5_20Hz",
      // Band energies: NaN where the band share is (docs/results.md: "NaN as the share").
      "/power_quality/band_energy_0p01_0p1Hz_MW2",
      "/power_quality/band_energy_0p1_1Hz_MW2",
      "/power_quality/band_energy_1_5Hz_MW2",
      "/power_quality/band_energy_5_20Hz_MW2",
      "/power_quality/dominant_frequency_Hz",
  };
  return names;
}

/// Whether dataset `name` may hold NaN: one of documented_nan(), or a service's latency percentiles
/// (/services/<name>/ttft_p50_s ...: no request ended in the interval, or in the window).
inline bool nan_documented(const std::string& name) {
  if (documented_nan().count(name)) return true;
  if (name.rfind("/services/", 0) != 0) return false;
  const auto leaf = name.substr(name.rfind('/') + 1);
  return leaf.rfind("ttft_p", 0) == 0 || leaf.rfind("tpot_p", 0) == 0;
}

}  // namespace fleetwatt::fuzz
