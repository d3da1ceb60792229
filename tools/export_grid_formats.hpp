// The meter's load profile in the formats grid-study tools read directly (`fleetwatt export --format`):
// an OpenDSS LoadShape (a definition with `npts`, `sinterval` and `mult=(file=...)`, and its file of per-unit
// multipliers, one per line, 1.0 = the base) and a GridLAB-D player file (the first line an absolute time
// stamp and a value, then `+Ns,value` lines, '#' comments). Both are written from the rows the CSV export
// writes (the same resampling), so a LoadShape's mult x base and a player's values are the CSV's column.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "export_values.hpp"
#include "fleetwatt/results/metrics/wall_clock.hpp"

namespace fleetwatt::tools {

/// One row of the meter's series: its start and length (ns since the run's start) and its mean power (W).
struct MeterRow {
  std::int64_t start_ns = 0;
  std::int64_t length_ns = 0;
  double watts = 0.0;
};

/// A pass over the meter's rows in time order; may be called more than once (the OpenDSS base is the peak,
/// found by a first pass, so a year at 1 s is never held in memory).
using MeterRows = std::function<void(const std::function<void(const MeterRow&)>&)>;

/// What the rows are, for the files' comment lines.
struct MeterSeriesInfo {
  std::string source;         ///< the result file, as given
  std::string meter;          ///< which meter: "grid import (after the batteries)", "facility demand", ...
  std::int64_t width_ns = 0;  ///< the row interval
  results::WallClock clock;   ///< the run's clock (time stamps)
};

/// The LoadShape written by write_opendss.
struct OpenDssShape {
  std::string name;
  std::filesystem::path mult_file;
  double base_kW = 0.0;
  std::size_t points = 0;
};

/// The OpenDSS name of a LoadShape for `dss` (its stem, letters, digits and '_' only, not starting with a
/// digit).
[[nodiscard]] std::string opendss_name(const std::filesystem::path& dss);

/// Writes the LoadShape definition to `dss` and its multipliers to STEM_mult.csv beside it (each through a
/// temporary file renamed when complete; a failure leaves neither). `base_kW`: 1.0 pu, or the peak row when
/// absent; `decimals`: the multipliers' (default: 0.1 W of the base).
OpenDssShape write_opendss(const std::filesystem::path& dss, const MeterRows& rows,
                           const MeterSeriesInfo& info, std::optional<double> base_kW,
                           std::optional<int> decimals);

/// Writes a GridLAB-D player of the rows in `unit` with `decimals`; returns the number of value lines. Time
/// stamps are UTC ("2026-01-01 00:00:00 UTC"), the following lines relative in whole seconds: a row interval
/// that is not whole seconds is refused before anything is written (GridLAB-D's clock steps in seconds).
std::size_t write_gridlabd(std::ostream& out, const MeterRows& rows, const MeterSeriesInfo& info,
                           const PowerUnit& unit, int decimals);

}  // namespace fleetwatt::tools
