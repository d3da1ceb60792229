// A region's result file: the sites' rows (as a sweep's members: /region/sites, and each site's own result
// file linked in under /sites/NAME) and the region's own figures: every site's facility and IT power on a
// common time base (UTC, from each site's [output] start), their sums, and the coincident peak (the highest
// interval of the sum, against the sum of the sites' own peaks on the same base).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "fleetwatt/results/hdf5/sweep_index.hpp"

namespace fleetwatt::results {

/// One site's stored facility series: interval means from its start instant on.
struct SiteSeries {
  std::string name;
  std::int64_t start_unix_ns = 0;  ///< the instant its simulated time 0 stands for
  std::int64_t interval_ns = 0;    ///< its facility interval
  std::int64_t horizon_ns = 0;     ///< its window's length (the last interval may be shorter)
  /// What the site's meter reads: its grid import when it has batteries or grid events, else its facility
  /// power (the region adds up what the utility sees at each site).
  std::vector<double> facility_W, it_W;
  std::string meter = "/facility/facility_power_W";  ///< the dataset facility_W was read from
};

/// The sites on the common base: [start, start + n x interval), the part of time every site covers.
struct RegionSeries {
  std::int64_t start_unix_ns = 0, interval_ns = 0;
  std::vector<double> facility_W, it_W;              ///< sums over the sites, per interval
  std::vector<std::vector<double>> site_facility_W;  ///< per site (in the sites' order), per interval
  std::vector<std::string> site_meter;               ///< per site: the dataset its series is
};

struct RegionFigures {
  double coincident_peak_W = 0.0;          ///< the highest interval of the summed facility power
  std::int64_t coincident_peak_index = 0;  ///< its interval
  double sum_of_site_peaks_W = 0.0;        ///< each site's own highest interval on the same base, summed
  double coincidence_factor = 0.0;         ///< coincident peak / sum of site peaks (1: all peak together)
  double energy_J = 0.0, mean_W = 0.0;     ///< over the common base
  std::vector<double> site_peak_W, site_at_peak_W;  ///< each site's peak, and its load at the coincident peak
};

/// A site's simulated window: from the instant its time 0 stands for, `horizon_ns` long.
struct SiteWindow {
  std::int64_t start_unix_ns = 0, horizon_ns = 0;
};
/// The part of time every window covers, as [first, second); second <= first when they share nothing.
/// The one rule both the check before a region runs (from the scenarios) and common_base (from the files)
/// use.
[[nodiscard]] std::pair<std::int64_t, std::int64_t> common_window(const std::vector<SiteWindow>& windows);

/// Each site's series resampled exactly (overlap-weighted interval means) onto intervals of `interval_ns`
/// from the latest site start to the earliest site end, whole intervals only. Throws std::invalid_argument
/// when the sites share no whole interval.
[[nodiscard]] RegionSeries common_base(const std::vector<SiteSeries>& sites, std::int64_t interval_ns);

[[nodiscard]] RegionFigures region_figures(const RegionSeries& s);

/// A site's series from its result file.
[[nodiscard]] SiteSeries read_site_series(const std::filesystem::path& result_file, const std::string& name,
                                          std::int64_t interval_ns);

/// Writes the region file at `out` (temporary name, renamed when complete): /region/sites (the sweep table's
/// columns), /sites/NAME (external links), /region/time_s, time_unix_s, facility_power_W, it_power_W,
/// site_facility_power_W (intervals x sites) and /region/summary.
void write_region_index(const std::filesystem::path& out, const std::vector<SweepMemberRow>& rows,
                        const RegionSeries& series, const RegionFigures& figures, const SweepProvenance& p);

}  // namespace fleetwatt::results
