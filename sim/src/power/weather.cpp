// Weather CSV reading (core's tokenizer and timestamp parser) and the wet-bulb formula.
#include "fleetwatt/sim/power/weather.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/timestamp.hpp"

namespace fleetwatt::sim {
double wet_bulb_stull_C(double T, double rh) {
  return T * std::atan(0.151977 * std::sqrt(rh + 8.313659)) + std::atan(T + rh) - std::atan(rh - 1.676331) +
         0.00391838 * std::pow(rh, 1.5) * std::atan(0.023101 * rh) - 4.686035;
}

Weather read_weather_csv(std::istream& in, const std::string& name, const std::string& start) {
  core::CsvReader csv(in, name, core::CsvDialect{',', '#'});
  csv.read_header({"time", "dry_bulb_c"});
  const auto wet_col = csv.column("wet_bulb_c");
  const auto rh_col = csv.column("relative_humidity_pct");
  if (wet_col && rh_col)
    throw core::TraceFormatError({name, csv.line(), 0}, "relative_humidity_pct",
                                 "give wet_bulb_c or relative_humidity_pct, not both");
  auto fail = [&](const core::CsvRow& row, std::string_view col, const std::string& why) {
    throw core::TraceFormatError(csv.where(row, *csv.column(col)), std::string(col), why);
  };
  auto value = [&](const core::CsvRow& row, std::string_view col, double lo, double hi) {
    const auto& text = csv.text(row, col);
    const auto v = core::parse_number(text);
    if (!v) fail(row, col, fmt::format("'{}' is not a number", text));
    if (*v < lo || *v > hi) fail(row, col, fmt::format("{:g} is outside {:g}..{:g}", *v, lo, hi));
    return *v;
  };
  Weather w;
  w.source = name;
  while (auto row = csv.next()) {
    if (row->fields.size() != csv.header().size())
      throw core::TraceFormatError(
          {name, row->line, 0}, "record",
          fmt::format("has {} fields, the header has {}", row->fields.size(), csv.header().size()));
    const auto& time_text = csv.text(*row, "time");
    auto t = core::parse_timestamp(time_text);
    if (!t) t = core::parse_number(time_text);
    if (!t) fail(*row, "time", fmt::format("'{}' is neither a timestamp nor seconds", time_text));
    if (!w.t_s.empty() && !(*t > w.t_s.back())) fail(*row, "time", "times must increase from row to row");
    // Hourly data with gaps of a few missing hours is normal; a day without a reading is a broken file.
    if (!w.t_s.empty() && *t - w.t_s.back() > 86400.0)
      fail(*row, "time",
           fmt::format("{:g} h after the previous row; at most 24 h", (*t - w.t_s.back()) / 3600));
    const double dry = value(*row, "dry_bulb_c", -90.0, 60.0);
    w.t_s.push_back(*t);
    w.dry_bulb_C.push_back(dry);
    if (wet_col) {
      const double wet = value(*row, "wet_bulb_c", -90.0, 60.0);
      if (wet > dry + 1e-9) fail(*row, "wet_bulb_c", fmt::format("{:g} degC is above the dry bulb", wet));
      w.wet_bulb_C.push_back(wet);
    } else if (rh_col) {
      w.wet_bulb_C.push_back(
          std::min(dry, wet_bulb_stull_C(dry, value(*row, "relative_humidity_pct", 0.0, 100.0))));
    }
  }
  if (w.t_s.empty()) throw core::TraceFormatError({name, csv.line(), 0}, "record", "the file has no rows");
  double origin = w.t_s.front();
  if (!start.empty()) {
    auto s = core::parse_timestamp(start);
    if (!s) s = core::parse_number(start);
    if (!s)
      throw core::ConfigError({name, 0, 0}, "weather_start",
                              fmt::format("'{}' is neither a timestamp nor seconds", start));
    origin = *s;
  }
  for (auto& x : w.t_s) x -= origin;
  return w;
}

Weather read_weather_csv(const std::filesystem::path& file, const std::string& start) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw core::TraceFormatError({file.string(), 0, 0}, "file", "cannot be opened");
  return read_weather_csv(in, file.string(), start);
}

}  // namespace fleetwatt::sim
