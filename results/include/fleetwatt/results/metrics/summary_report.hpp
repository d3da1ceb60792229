// The human summary printed at the end of a run: SI totals turned into kWh, kW, hours and tonnes.
#pragma once

#include <string>

#include "fleetwatt/results/metrics/grid_metrics.hpp"
#include "fleetwatt/results/metrics/power_quality.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"
#include "fleetwatt/sim/engine/run_summary.hpp"

namespace fleetwatt::results {

/// A multi-line, aligned summary of a run.
[[nodiscard]] std::string format_summary(const sim::RunSummary& s);
/// The same with the grid metrics of its facility series: the peak's time, billing-window peaks, load
/// factor, energy per day, ramps and the coincident peak; times on `clock`.
[[nodiscard]] std::string format_summary(const sim::RunSummary& s, const GridMetrics& grid,
                                         const WallClock& clock);
/// The same with the power-quality figures (ramps, dynamic range, band shares, dominant frequency).
[[nodiscard]] std::string format_summary(const sim::RunSummary& s, const GridMetrics& grid,
                                         const WallClock& clock, const PowerQuality& quality);

/// Energy in the unit that reads best (Wh, kWh, MWh, GWh).
[[nodiscard]] std::string format_energy(double joules);
/// Power in the unit that reads best (W, kW, MW).
[[nodiscard]] std::string format_power(double watts);

}  // namespace fleetwatt::results
