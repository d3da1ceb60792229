// The region's figures from its sites' results: each site's facility series (interval means, piecewise
// constant) integrated exactly over the common base's intervals, in integer nanoseconds since 1970 so that
// edges compare exactly; then sums, the coincident peak and the region file.
#include "fleetwatt/results/hdf5/region_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "fleetwatt/core/time.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"
#include "hdf5_datasets.hpp"
#include "member_index.hpp"

namespace fleetwatt::results {

namespace {

// The mean of a site's piecewise-constant series over [a, b) (both within its covered span).
double mean_over(const SiteSeries& s, const std::vector<double>& v, std::int64_t a, std::int64_t b) {
  const std::int64_t from = a - s.start_unix_ns, to = b - s.start_unix_ns;
  double sum = 0.0;
  for (std::int64_t k = from / s.interval_ns; k * s.interval_ns < to; ++k) {
    const std::int64_t lo = std::max(from, k * s.interval_ns);
    const std::int64_t hi = std::min({to, (k + 1) * s.interval_ns, s.horizon_ns});
    if (hi > lo) sum += v.at(static_cast<std::size_t>(k)) * static_cast<double>(hi - lo);
  }
  return sum / static_cast<double>(b - a);
}

}  // namespace

std::pair<std::int64_t, std::int64_t> common_window(const std::vector<SiteWindow>& windows) {
  std::int64_t start = INT64_MIN, end = INT64_MAX;
  for (const auto& w : windows) {
    start = std::max(start, w.start_unix_ns);
    end = std::min(end, w.start_unix_ns + w.horizon_ns);
  }
  return {start, end};
}

RegionSeries common_base(const std::vector<SiteSeries>& sites, std::int64_t interval_ns) {
  if (sites.empty() || interval_ns <= 0) throw std::invalid_argument("a region needs sites and an interval");
  std::vector<SiteWindow> windows;
  for (const auto& s : sites) windows.push_back({s.start_unix_ns, s.horizon_ns});
  const auto [start, end] = common_window(windows);
  const std::int64_t n = end > start ? (end - start) / interval_ns : 0;
  if (n <= 0)
    throw std::invalid_argument(
        "the sites' windows share no whole interval of the region's time base (compare their [output] start "
        "and horizon_s)");
  RegionSeries r;
  r.start_unix_ns = start;
  r.interval_ns = interval_ns;
  r.facility_W.assign(static_cast<std::size_t>(n), 0.0);
  r.it_W.assign(static_cast<std::size_t>(n), 0.0);
  for (const auto& s : sites) {
    r.site_meter.push_back(s.meter);
    auto& mine = r.site_facility_W.emplace_back(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t a = start + k * interval_ns, b = a + interval_ns;
      const auto i = static_cast<std::size_t>(k);
      mine[i] = mean_over(s, s.facility_W, a, b);
      r.facility_W[i] += mine[i];
      r.it_W[i] += mean_over(s, s.it_W, a, b);
    }
  }
  return r;
}

RegionFigures region_figures(const RegionSeries& s) {
  RegionFigures f;
  const auto peak = std::max_element(s.facility_W.begin(), s.facility_W.end());
  f.coincident_peak_W = *peak;
  f.coincident_peak_index = peak - s.facility_W.begin();
  for (const auto& site : s.site_facility_W) {
    f.site_peak_W.push_back(*std::max_element(site.begin(), site.end()));
    f.site_at_peak_W.push_back(site[static_cast<std::size_t>(f.coincident_peak_index)]);
    f.sum_of_site_peaks_W += f.site_peak_W.back();
  }
  f.coincidence_factor = f.sum_of_site_peaks_W > 0 ? f.coincident_peak_W / f.sum_of_site_peaks_W : 0.0;
  for (double w : s.facility_W) f.energy_J += w * static_cast<double>(s.interval_ns) / 1e9;
  f.mean_W =
      f.energy_J / (static_cast<double>(s.facility_W.size()) * static_cast<double>(s.interval_ns) / 1e9);
  return f;
}

SiteSeries read_site_series(const std::filesystem::path& result_file, const std::string& name,
                            std::int64_t interval_ns) {
  const ResultReader r(result_file);
  SiteSeries s;
  s.name = name;
  s.interval_ns = interval_ns;
  const std::int64_t start_s = r.has_attribute("/", "start_unix_s") ? r.integer_attribute("/", "start_unix_s")
                                                                    : WallClock{}.start_unix_s;
  s.start_unix_ns = start_s * 1'000'000'000;
  s.horizon_ns = core::Duration::from_seconds(r.doubles("/summary/horizon_s").at(0)).ns();
  if (r.has("/facility/grid_import_W")) s.meter = "/facility/grid_import_W";
  s.facility_W = r.doubles(s.meter);
  s.it_W = r.doubles("/facility/it_power_W");
  return s;
}

void write_region_index(const std::filesystem::path& out, const std::vector<SweepMemberRow>& rows,
                        const RegionSeries& series, const RegionFigures& f, const SweepProvenance& p) {
  write_member_index(out, rows, p, {"region", "sites", "sites", "region file"}, [&](H5::H5File& file) {
    H5::Group g = file.openGroup("/region");
    const std::size_t n = series.facility_W.size();
    std::vector<double> t(n), unix_s(n);
    for (std::size_t k = 0; k < n; ++k) {
      const auto at = static_cast<std::int64_t>(k) * series.interval_ns;
      t[k] = static_cast<double>(at) / 1e9;
      unix_s[k] = static_cast<double>(series.start_unix_ns + at) / 1e9;
    }
    write_vector(g, "time_s", t, "s since the common base's start (time_unix_s[0])");
    write_vector(g, "time_unix_s", unix_s, "s since 1970-01-01T00:00:00Z (UTC)");
    write_vector(g, "facility_power_W", series.facility_W,
                 "W: the sites' meters summed (each site's grid import where it has batteries or grid "
                 "events, else its facility power), mean over [time_s[i], time_s[i] + interval_s)");
    std::string meters;
    for (std::size_t j = 0; j < series.site_meter.size(); ++j)
      meters += fmt::format("{}{}: {}", j ? "; " : "", rows.at(j).name, series.site_meter[j]);
    write_string_attribute(g, "meter", meters);
    write_vector(g, "it_power_W", series.it_W, "W: the sites' IT power summed");
    // Intervals x sites, row-major: column j is site j of /region/sites.
    std::vector<double> grid;
    grid.reserve(n * series.site_facility_W.size());
    for (std::size_t k = 0; k < n; ++k)
      for (const auto& site : series.site_facility_W) grid.push_back(site[k]);
    hsize_t dims[2] = {n, series.site_facility_W.size()};
    H5::DataSet ds =
        g.createDataSet("site_facility_power_W", H5::PredType::NATIVE_DOUBLE, H5::DataSpace(2, dims));
    if (!grid.empty()) ds.write(grid.data(), H5::PredType::NATIVE_DOUBLE);
    write_string_attribute(ds, "units", "W (intervals x sites, in the order of /region/sites)");
    H5::Group s = g.createGroup("summary");
    write_scalar(s, "interval_s", static_cast<double>(series.interval_ns) / 1e9, "s");
    write_scalar(s, "start_unix_s", static_cast<double>(series.start_unix_ns) / 1e9, "s since 1970 (UTC)");
    write_scalar(s, "coincident_peak_W", f.coincident_peak_W, "W");
    write_scalar(s, "coincident_peak_time_s",
                 static_cast<double>(f.coincident_peak_index * series.interval_ns) / 1e9, "s");
    write_scalar(s, "sum_of_site_peaks_W", f.sum_of_site_peaks_W, "W");
    write_scalar(s, "coincidence_factor", f.coincidence_factor, "1");
    write_scalar(s, "facility_energy_J", f.energy_J, "J");
    write_scalar(s, "mean_facility_W", f.mean_W, "W");
    write_vector(s, "site_peak_W", f.site_peak_W, "W, per site");
    write_vector(s, "site_at_coincident_peak_W", f.site_at_peak_W, "W, per site");
  });
}

}  // namespace fleetwatt::results
