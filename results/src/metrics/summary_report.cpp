// Human units appear only here, in what people read.
#include "fleetwatt/results/metrics/summary_report.hpp"

#include <fmt/format.h>
#include <cmath>
#include <utility>

namespace fleetwatt::results {

std::string format_energy(double j) {
  const double wh = j / 3600.0;
  if (std::fabs(wh) >= 1e9) return fmt::format("{:.3f} GWh", wh / 1e9);
  if (std::fabs(wh) >= 1e6) return fmt::format("{:.3f} MWh", wh / 1e6);
  if (std::fabs(wh) >= 1e3) return fmt::format("{:.3f} kWh", wh / 1e3);
  return fmt::format("{:.3f} Wh", wh);
}

std::string format_power(double w) {
  if (std::fabs(w) >= 1e6) return fmt::format("{:.3f} MW", w / 1e6);
  if (std::fabs(w) >= 1e3) return fmt::format("{:.3f} kW", w / 1e3);
  return fmt::format("{:.1f} W", w);
}

/// "41091.2 kWh (41.091 MWh)": the report unit the planners asked for, and a readable one when larger.
static std::string with_scale(double value, const char* unit, double big, const char* big_unit,
                              int decimals = 1) {
  std::string out = fmt::format("{:.{}f} {}", value, decimals, unit);
  if (std::fabs(value) >= big) out += fmt::format(" ({:.3f} {})", value / big, big_unit);
  return out;
}

std::string format_summary(const sim::RunSummary& s) {
  return format_summary(s, GridMetrics{}, WallClock{});
}

namespace {
/// What the summary prints for a figure it does not have (no such window, or one below the data's
/// resolution): never a number.
constexpr const char* kNone = "\u2013";

/// A simulated time in seconds on the wall clock; kNone when undefined (NaN: no such window).
std::string stamp(const WallClock& clock, double t_s) {
  if (std::isnan(t_s)) return kNone;
  return clock.iso8601(static_cast<std::int64_t>(std::llround(t_s * 1e9)));
}
std::string kw(double w) {
  return std::isnan(w) ? std::string(kNone) : fmt::format("{:.1f} kW", w / 1e3);
}
/// "1 h", "15 min", "1 s", "0.1 s": a window or interval length as the summary names it.
std::string span_words(double s) {
  if (s >= 3600.0 && std::fmod(s, 3600.0) == 0.0) return fmt::format("{:g} h", s / 3600.0);
  if (s >= 60.0 && std::fmod(s, 60.0) == 0.0) return fmt::format("{:g} min", s / 60.0);
  return fmt::format("{:g} s", s);
}
/// Why a window's figures are missing, when it is shorter than the series' interval.
std::string below_resolution(double width_s, double interval_s) {
  return interval_s > width_s ? fmt::format(" (window shorter than the {} interval)", span_words(interval_s))
                              : std::string();
}
/// A window's demand peak and its time, or kNone.
std::string window_peak(const WindowStats& w, const WallClock& clock, double interval_s) {
  if (std::isnan(w.peak_W)) return kNone + below_resolution(w.width_s, interval_s);
  return fmt::format("{} at {}", kw(w.peak_W), stamp(clock, w.peak_time_s));
}
}  // namespace

std::string format_summary(const sim::RunSummary& s, const GridMetrics& grid, const WallClock& clock) {
  return format_summary(s, grid, clock, PowerQuality{});
}

std::string format_summary(const sim::RunSummary& s, const GridMetrics& grid, const WallClock& clock,
                           const PowerQuality& quality) {
  const bool with_grid = !std::isnan(grid.peak_time_s);
  std::string out;
  auto line = [&out](std::string_view label, const std::string& value) {
    out += fmt::format("  {:<28}{}\n", label, value);
  };
  out += fmt::format(
      "fleetwatt run: {:.2f} h simulated in {:.2f} s ({} events; scheduler {}, placement {}, "
      "predictor {})\n",
      s.horizon_s / 3600.0, s.wall_s, s.events, s.scheduler, s.placement, s.predictor);
  if (s.fleet_groups.size() > 1) {
    line("fleet", fmt::format("{} node groups", s.fleet_groups.size()));
    for (const auto& g : s.fleet_groups) out += fmt::format("    {}\n", g);
  }
  // With a warm-up, jobs running or queued at 0 can finish in the window too: "of N arrived" would mislead.
  if (s.jobs_at_start > 0)
    line("jobs finished", fmt::format("{} of {} arrived and {} running or queued at 0 ({} in the workload)",
                                      s.jobs_finished, s.jobs_arrived, s.jobs_at_start, s.jobs_total));
  else
    line("jobs finished",
         fmt::format("{} of {} arrived ({} in the workload)", s.jobs_finished, s.jobs_arrived, s.jobs_total));
  line("jobs running at the end", fmt::format("{}", s.jobs_running));
  line("jobs still queued", fmt::format("{}", s.jobs_queued));
  line("GPU-hours", fmt::format("{:.1f}", s.gpu_seconds / 3600.0));
  line("mean GPU utilisation", fmt::format("{:.1f} % (allocated GPU time)", 100.0 * s.gpu_utilisation));
  line("GPU energy", with_scale(s.gpu_energy_J / 3.6e6, "kWh", 1000, "MWh"));
  line("IT energy", with_scale(s.it_energy_J / 3.6e6, "kWh", 1000, "MWh"));
  line("facility energy", with_scale(s.facility_energy_J / 3.6e6, "kWh", 1000, "MWh"));
  // With batteries the utility's meter reads grid import: the grid metrics and power-quality figures are
  // computed from it (the result writer feeds them the import), and the facility's own draw is labelled
  // as demand, before the batteries.
  const bool on_import = s.battery || s.grid_events;
  if (on_import) {
    line("meter",
         fmt::format("grid import ({}): every peak, ramp and power-quality figure below is of import",
                     s.battery ? "batteries" : "grid events"));
    line("peak facility demand", with_scale(s.peak_facility_sample_W / 1e3, "kW", 1000, "MW") +
                                     (s.battery ? " (highest interval mean, before the batteries)"
                                                : " (highest interval mean, what the site draws)"));
    line("mean facility demand", with_scale(s.mean_facility_W / 1e3, "kW", 1000, "MW"));
    if (with_grid) {
      line("peak grid import", with_scale(grid.peak_W / 1e3, "kW", 1000, "MW") +
                                   " (highest interval mean) at " + stamp(clock, grid.peak_time_s));
      line("mean grid import", with_scale(grid.mean_W / 1e3, "kW", 1000, "MW"));
    }
  } else {
    line("peak facility power", with_scale(s.peak_facility_sample_W / 1e3, "kW", 1000, "MW") +
                                    " (highest interval mean)" +
                                    (with_grid ? " at " + stamp(clock, grid.peak_time_s) : std::string()));
    line("mean facility power", with_scale(s.mean_facility_W / 1e3, "kW", 1000, "MW"));
  }
  const char* meter = on_import ? "import" : "demand";
  const std::string ramp_word = on_import ? "max import ramp per" : "max ramp per";
  if (with_grid) {
    // What tariffs bill: the highest mean over clock-aligned windows of the meter's series.
    line(fmt::format("15-min peak {}", meter), window_peak(grid.quarter_hour, clock, grid.interval_s));
    line(fmt::format("1-h peak {}", meter), window_peak(grid.hour, clock, grid.interval_s));
    line("load factor", std::isnan(grid.load_factor) ? std::string(kNone)
                                                     : fmt::format("{:.3f} (mean / peak)", grid.load_factor));
    line(on_import ? "grid import per day" : "facility energy per day",
         with_scale(grid.energy_per_day_J / 3.6e6, "kWh", 1000, "MWh"));
    const std::pair<const char*, const WindowStats*> widths[] = {
        {"1 min", &grid.minute}, {"15 min", &grid.quarter_hour}, {"1 h", &grid.hour}};
    for (const auto& [width, w] : widths)
      line(fmt::format("{} {}", ramp_word, width),
           fmt::format("up {}, down {}{}", kw(w->ramp_up_W), kw(w->ramp_down_W),
                       std::isnan(w->ramp_up_W) ? below_resolution(w->width_s, grid.interval_s) : ""));
    if (!grid.system_peak_hours.empty())
      line("coincident peak",
           fmt::format("max {} at {}, mean {} over {} system peak hours", kw(grid.coincident_peak_max_W),
                       stamp(clock, grid.coincident_peak_time_s), kw(grid.coincident_peak_mean_W),
                       grid.coincident_hours));
  }
  if (quality.interval_s > 0) {
    // Power quality: how fast and at what frequencies the facility's draw swings (docs/results.md,
    // /power_quality).
    auto mw = [](double w) { return std::isnan(w) ? std::string(kNone) : fmt::format("{:.3f} MW", w / 1e6); };
    line(ramp_word + " 1 s",
         fmt::format("up {}, down {}{}", mw(quality.ramp_up_W[0]), mw(quality.ramp_down_W[0]),
                     below_resolution(quality.ramp_window_s[0], quality.interval_s)));
    line(on_import ? "import dynamic range" : "dynamic range",
         fmt::format("{} within 1 s, {} within 1 min", mw(quality.dynamic_range_W[0]),
                     mw(quality.dynamic_range_W[1])));
    std::string shares;
    for (std::size_t b = 0; b < kPowerQualityBands.size(); ++b) {
      if (std::isnan(quality.band_share[b])) continue;
      if (!shares.empty()) shares += ", ";
      shares += fmt::format("{:g}-{:g} Hz {:.1f} %", kPowerQualityBands[b][0], kPowerQualityBands[b][1],
                            100.0 * quality.band_share[b]);
    }
    line("fluctuation energy", shares.empty() ? std::string(kNone) : shares);
    // The absolute band energy (variance, MW^2): what a grid study's oscillation limit compares, and what
    // [smoothing] lowers (the 0.1-5 Hz band).
    std::string energies;
    for (std::size_t b = 0; b < kPowerQualityBands.size(); ++b) {
      if (std::isnan(quality.band_energy_W2[b])) continue;
      if (!energies.empty()) energies += ", ";
      energies += fmt::format("{:g}-{:g} Hz {:.4g}", kPowerQualityBands[b][0], kPowerQualityBands[b][1],
                              quality.band_energy_W2[b] / 1e12);
    }
    line("band energy (MW^2)", energies.empty() ? std::string(kNone) : energies);
    line("dominant frequency", std::isnan(quality.dominant_frequency_Hz)
                                   ? std::string(kNone)
                                   : fmt::format("{:.4g} Hz (period {:.4g} s)", quality.dominant_frequency_Hz,
                                                 1.0 / quality.dominant_frequency_Hz));
  }
  if (s.cooling != "constant")
    line("PUE", fmt::format("{:.3f} over the run; {:.3f} to {:.3f} by interval ({} cooling)", s.pue,
                            s.pue_min_interval, s.pue_max_interval, s.cooling));
  if (s.battery) {
    line("grid import", with_scale(s.grid_import_J / 3.6e6, "kWh", 1000, "MWh") + ", peak " +
                            with_scale(s.peak_grid_import_W / 1e3, "kW", 1000, "MW") +
                            " (batteries; CO2 and cost below are on import)");
    if (s.import_limit_W > 0.0)
      line("over import limit",
           fmt::format("{:.2f} h above {:.1f} kW", s.hours_over_import_limit, s.import_limit_W / 1e3));
    line("storage loss", with_scale(s.storage_loss_J / 3.6e6, "kWh", 1000, "MWh"));
  }
  if (s.grid_events) {
    line("grid events", fmt::format("{} ({} ridden through); IT load off the grid {:.0f} s in all",
                                    s.grid_event_count, s.grid_events_ridden_through, s.time_off_grid_s));
    line("load lost to a dip",
         with_scale(s.load_lost_W / 1e3, "kW", 1000, "MW") +
             fmt::format(" (largest interval mean); return ramp {}/min",
                         with_scale(s.return_ramp_W_per_s * 60 / 1e3, "kW", 1000, "MW")));
    line("served off the grid", "UPS " + with_scale(s.ups_energy_J / 3.6e6, "kWh", 1000, "MWh") + ", dark " +
                                    with_scale(s.unserved_energy_J / 3.6e6, "kWh", 1000, "MWh") +
                                    fmt::format(" (UPS ran out); {} jobs interrupted", s.grid_interruptions));
    line("grid import", with_scale(s.grid_import_J / 3.6e6, "kWh", 1000, "MWh") + ", peak " +
                            with_scale(s.peak_grid_import_W / 1e3, "kW", 1000, "MW") +
                            " (CO2 and cost below are on import)");
  }
  line("CO2", with_scale(s.carbon_kg, "kg", 1000, "t"));
  if (s.cost != 0.0) line("electricity cost", fmt::format("{:.2f}", s.cost));
  // The warm-up: how far from its mean the fleet's occupancy was when the window opened.
  if (s.warmup_s > 0.0) {
    line("warm-up", fmt::format("{:.1f} h before 0 ({} jobs running or queued at 0)", s.warmup_s / 3600.0,
                                s.jobs_at_start));
    line("occupancy at t=0", s.gpu_utilisation > 0.0
                                 ? fmt::format("{:.1f} % of its mean ({:.1f} % of GPUs; mean {:.1f} %)",
                                               100.0 * s.occupancy_at_start / s.gpu_utilisation,
                                               100.0 * s.occupancy_at_start, 100.0 * s.gpu_utilisation)
                                 : fmt::format("{:.1f} % of GPUs", 100.0 * s.occupancy_at_start));
  }
  if (s.failures)
    line("interruptions",
         fmt::format("{} ({:.1f} expected at {:.4g} per GPU-h); lost {:.1f} GPU-h of work ({:.3f} MWh), "
                     "{:.1f} GPU-h restarting ({:.3f} MWh)",
                     s.interruptions, s.interruptions_expected, s.failure_rate_per_gpu_hour,
                     s.lost_gpu_s / 3600.0, s.lost_J / 3.6e9, s.restart_gpu_s / 3600.0, s.restart_J / 3.6e9));
  if (s.smoothing)
    line("power smoothing",
         fmt::format("{} (floor {:.0f} % of TDP): {:.3f} MWh extra GPU energy, {:.2f} % of IT energy",
                     s.smoothing_mode, 100.0 * s.smoothing_floor_fraction, s.smoothing_energy_J / 3.6e9,
                     s.it_energy_J > 0.0 ? 100.0 * s.smoothing_energy_J / s.it_energy_J : 0.0));
  if (s.capped_predictions > 0)
    line("capped predictions",
         fmt::format("{} (a job's predicted power above its GPU's TDP; capped to the TDP)",
                     s.capped_predictions));
  return out;
}

}  // namespace fleetwatt::results
