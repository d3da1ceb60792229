// A region run: every site prepared first (so that bad input in any site stops the run before anything is
// simulated), then simulated in turn into its own result file, then the region file formed from those files.
#include "region_run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <iostream>

#include "cli_support.hpp"
#include "fleetwatt/core/time.hpp"
#include "fleetwatt/results/hdf5/region_index.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"
#include "fleetwatt/runs/region.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "heartbeat.hpp"
#include "output_lock.hpp"
#include "scenario_run.hpp"
#include "version.hpp"

namespace fleetwatt::tools {

namespace {

namespace fs = std::filesystem;

// The common base's interval: [region] interval_s, else the coarsest site's facility interval.
std::int64_t region_interval_ns(const runs::Region& region) {
  if (region.interval_s > 0.0) return core::Duration::from_seconds(region.interval_s).ns();
  std::int64_t w = 0;
  for (const auto& s : region.sites)
    w = std::max(w, core::Duration::from_seconds(s.scenario.output.facility_interval_s).ns());
  return w;
}

// Before anything runs: the sites' windows (from each [output] start, horizon_s long) must share a whole
// interval of the base.
void check_common_window(const runs::Region& region, std::int64_t interval_ns) {
  std::vector<results::SiteWindow> windows;
  for (const auto& s : region.sites)
    windows.push_back({s.scenario.output.start_unix_s * 1'000'000'000,
                       core::Duration::from_seconds(s.scenario.workload.horizon_s).ns()});
  const auto [start, end] = results::common_window(windows);
  if (end - start < interval_ns)
    throw jobs::ConfigError(
        region.interval_where.file.empty() ? jobs::SourceLocation{region.file.string(), 0, 0}
                                           : region.interval_where,
        "region.interval_s",
        fmt::format(
            "the sites' windows ([output] start, horizon_s) share {:.6g} s, less than one interval of "
            "the region's time base ({:.6g} s)",
            std::max<double>(0.0, static_cast<double>(end - start) / 1e9),
            static_cast<double>(interval_ns) / 1e9));
}

}  // namespace

int run_region(const RegionRunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  set_polling(false);  // until the sites run: preparing them polls nothing (cli_support.hpp)
  // Lines on a stderr that is not a terminal (heartbeat.hpp); -q asks for no progress at all.
  Heartbeat heartbeat(heartbeat_period(), !o.quiet && !stderr_is_terminal());
  heartbeat.phase("loading the region");
  runs::Region region = runs::load_region(o.region, o.overrides, o.seed);
  const fs::path out = o.output.empty() ? fs::path(region.file.stem().string() + ".h5") : fs::path(o.output);
  check_output_path(out, {}, "-o", region.file);
  // Held to the end: a second region run into the same file would overwrite the sites as they are read.
  const OutputLock lock(out, "-o");
  const std::int64_t interval_ns = region_interval_ns(region);
  check_common_window(region, interval_ns);
  std::vector<runs::PreparedRun> runs;
  for (auto& site : region.sites) {
    heartbeat.phase(fmt::format("drawing the workload of site {}", site.name));
    runs.push_back(runs::prepare_run(std::move(site.scenario), {std::nullopt, band_override(o.band)},
                                     {nullptr, memory_limit_bytes(o.max_memory)}));
    for (const auto& w : runs.back().scenario.warnings->take_new())
      std::cerr << "fleetwatt: warning: site " << site.name << ": " << w << '\n';
    check_output_size(runs.back(), o.max_output);
    check_memory_size(runs.back(), o.max_memory);
  }
  set_polling(true);
  fs::path dir = out;
  dir += ".sites";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir))
    throw jobs::ConfigError({}, "-o", fmt::format("{}: cannot create the sites' folder", dir.string()));

  std::vector<results::SweepMemberRow> rows;
  std::vector<results::SiteSeries> series;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& site = region.sites[i];
    const fs::path file = dir / (site.name + ".h5");
    if (!o.quiet) std::cerr << fmt::format("  site {} ({} of {})\n", site.name, i + 1, runs.size());
    heartbeat.spoke();
    heartbeat.phase(fmt::format("simulating site {}", site.name));
    const auto s0 = std::chrono::steady_clock::now();
    (void)simulate_to_file(runs[i], file, o.quiet ? nullptr : heartbeat.callback(progress_printer()),
                           &stop_flag());
    results::SweepMemberRow row;
    row.member = static_cast<std::int64_t>(i);
    row.name = site.name;
    row.overrides = site.overrides;
    row.seed = static_cast<std::int64_t>(runs[i].scenario.seed);
    row.band = o.band;
    row.status = "done";
    row.rank = 0;
    row.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    row.file = (dir.filename() / file.filename()).string();
    row.figures = results::read_member_figures(file);
    rows.push_back(std::move(row));
    series.push_back(results::read_site_series(
        file, site.name, core::Duration::from_seconds(runs[i].scenario.output.facility_interval_s).ns()));
  }
  heartbeat.phase("writing the region file");
  const results::RegionSeries base = results::common_base(series, interval_ns);
  const results::RegionFigures f = results::region_figures(base);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string command;
  for (const auto& s : o.overrides) command += " --set '" + s + "'";
  results::write_region_index(out, rows, base, f,
                              {region.text, region.file.string(), command.empty() ? "" : command.substr(1), 1,
                               wall, FLEETWATT_VERSION, FLEETWATT_GIT_COMMIT});
  heartbeat.stop();  // no line after the summary
  if (!o.quiet) {
    results::WallClock clock;
    clock.start_unix_s = base.start_unix_ns / 1'000'000'000;
    const auto at_ns = f.coincident_peak_index * base.interval_ns;
    std::cout << fmt::format("fleetwatt run: region {}, {} sites in {:.2f} s\n", region.name, rows.size(),
                             wall);
    std::cout << fmt::format("  {:<16}{:>14}{:>14}{:>16}\n", "site", "energy MWh", "peak MW",
                             "at region peak");
    for (std::size_t i = 0; i < rows.size(); ++i)
      std::cout << fmt::format("  {:<16}{:>14.3f}{:>14.3f}{:>16.3f}\n", rows[i].name,
                               rows[i].figures.facility_energy_J / 3.6e9, f.site_peak_W[i] / 1e6,
                               f.site_at_peak_W[i] / 1e6);
    std::cout << fmt::format("  {:<28}{:.3f} MW at {} (interval {:g} s)\n", "coincident peak",
                             f.coincident_peak_W / 1e6, clock.iso8601(at_ns),
                             static_cast<double>(base.interval_ns) / 1e9);
    std::cout << fmt::format("  {:<28}{:.3f} MW (coincidence factor {:.3f})\n", "sum of the sites' peaks",
                             f.sum_of_site_peaks_W / 1e6, f.coincidence_factor);
    std::cout << fmt::format(
        "  {:<28}{:.1f} kWh over {:.2f} h common to every site\n", "region facility energy",
        f.energy_J / 3.6e6,
        static_cast<double>(base.facility_W.size()) * static_cast<double>(base.interval_ns) / 3.6e12);
    std::cout << fmt::format("  {:<28}{}\n  {:<28}{}\n", "region file", out.string(), "sites", dir.string());
  }
  return 0;
}

}  // namespace fleetwatt::tools
