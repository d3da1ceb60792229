// Outdoor weather for the facility's cooling model: hourly dry-bulb temperature and, when the file has it,
// wet-bulb temperature (given, or computed from relative humidity). Read from CSV with a time column
// (ISO 8601 or seconds, like grid signals) and held as a step function: each row's values hold from its
// time until the next row's, so a cooling power that depends on them stays piecewise constant and its
// integrals stay exact. Before the first row the first holds; after the last, the last.
#pragma once

#include <filesystem>
#include <istream>
#include <string>
#include <vector>

namespace fleetwatt::sim {

struct Weather {
  std::vector<double> t_s;         ///< simulation seconds, strictly increasing
  std::vector<double> dry_bulb_C;  ///< outdoor dry-bulb air temperature
  std::vector<double>
      wet_bulb_C;      ///< outdoor wet-bulb temperature; empty when the file has neither it nor RH
  std::string source;  ///< the file, for messages

  [[nodiscard]] bool has_wet_bulb() const noexcept { return !wet_bulb_C.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return t_s.size(); }
};

/// Wet-bulb temperature (degC) from dry-bulb (degC) and relative humidity (%) at sea-level pressure:
/// Stull (2011), "Wet-Bulb Temperature from Relative Humidity and Air Temperature", J. Appl. Meteor.
/// Climatol. 50, 2267-2269, eq. 1 (within about 0.3 K for RH 5-99 % and -20 to 50 degC).
[[nodiscard]] double wet_bulb_stull_C(double dry_bulb_C, double relative_humidity_pct);

/// Reads `time` (ISO 8601 timestamp or seconds) and `dry_bulb_c` columns, optionally `wet_bulb_c` or
/// `relative_humidity_pct`; lines starting with '#' are comments. `start` (a timestamp or seconds) is
/// the source time that simulation time zero maps to; empty: the first row. Bad rows (a missing or
/// non-numeric field, a temperature outside -90..60 degC, humidity outside 0..100 %, times that do not
/// increase, a step longer than a day) are TraceFormatErrors naming the file, line, column and field.
[[nodiscard]] Weather read_weather_csv(const std::filesystem::path& file, const std::string& start = {});
[[nodiscard]] Weather read_weather_csv(std::istream& in, const std::string& name,
                                       const std::string& start = {});

}  // namespace fleetwatt::sim
