// OpenDSS LoadShape and GridLAB-D player writers (export_grid_formats.hpp).
#include "export_grid_formats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "fleetwatt/core/text_output.hpp"

namespace fleetwatt::tools {

namespace {

/// Seconds as text: "900", "0.1".
std::string seconds_text(std::int64_t ns) {
  return fmt::format("{}", static_cast<double>(ns) / 1e9);
}

/// "2026-01-01 00:00:00 UTC": GridLAB-D's timestamp form, in UTC so no time-zone table is needed to read it.
std::string gridlabd_time(const results::WallClock& clock, std::int64_t t_ns) {
  const results::WallClock utc{clock.start_unix_s, 0};
  std::string iso = utc.iso8601(t_ns);  // "2026-01-01T00:00:00Z"
  iso[10] = ' ';
  iso.pop_back();
  return iso + " UTC";
}

/// The comment lines both files start with: what the values are and where they came from.
std::string describe(const MeterSeriesInfo& info, std::size_t points, std::int64_t first_ns,
                     std::int64_t last_length_ns) {
  std::string text = fmt::format("{} of {}: {} points of {} s from {}", info.meter, info.source, points,
                                 seconds_text(info.width_ns), info.clock.iso8601(first_ns));
  if (last_length_ns != info.width_ns && points > 0)
    text += fmt::format(" (the last covers {} s: the run ends there)", seconds_text(last_length_ns));
  return text;
}

}  // namespace

std::string opendss_name(const std::filesystem::path& dss) {
  std::string name;
  for (char c : dss.stem().string()) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) name = "shape_" + name;
  return name;
}

OpenDssShape write_opendss(const std::filesystem::path& dss, const MeterRows& rows,
                           const MeterSeriesInfo& info, std::optional<double> base_kW,
                           std::optional<int> decimals) {
  OpenDssShape shape;
  shape.name = opendss_name(dss);
  shape.mult_file = dss.parent_path() / (dss.stem().string() + "_mult.csv");
  // First pass: the peak (the default base), the number of points and the last row's length.
  double peak_W = 0.0;
  std::int64_t first_ns = 0, last_length_ns = 0;
  rows([&](const MeterRow& r) {
    if (shape.points++ == 0) first_ns = r.start_ns;
    if (!std::isnan(r.watts)) peak_W = std::max(peak_W, r.watts);
    last_length_ns = r.length_ns;
  });
  const bool base_is_peak = !base_kW;
  // The base as written in the definition (kW, 0.1 W): the multipliers are divided by exactly that number.
  const int kw_decimals = decimals_for(kPowerResolutionW, 1e3);
  shape.base_kW = std::stod(fixed_value(base_kW.value_or(peak_W / 1e3), kw_decimals));
  const double base_W = shape.base_kW * 1e3;
  const int mult_decimals = decimals.value_or(decimals_for(kPowerResolutionW, std::max(base_W, 1.0)));
  core::write_text_output(shape.mult_file, "-o", [&](std::ostream& out) {
    rows([&](const MeterRow& r) {
      out << fixed_value(base_W > 0 ? r.watts / base_W : 0.0, mult_decimals) << '\n';
    });
  });
  try {
    core::write_text_output(dss, "-o", [&](std::ostream& out) {
      out << "! fleetwatt: " << describe(info, shape.points, first_ns, last_length_ns) << '\n';
      out << fmt::format("! mult = kW / {} kW ({}); a load of that size follows the shape, e.g.\n",
                         fixed_value(shape.base_kW, kw_decimals),
                         base_is_peak ? "the peak row" : "the base given by --base-kw");
      out << fmt::format("!   New Load.{} bus1=... kV=... kW={} pf=1 daily={}\n", shape.name,
                         fixed_value(shape.base_kW, kw_decimals), shape.name);
      out << fmt::format("New LoadShape.{} npts={} sinterval={} mult=(file={})\n", shape.name, shape.points,
                         seconds_text(info.width_ns), shape.mult_file.filename().string());
    });
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(shape.mult_file, ec);  // never a mult file without its definition
    throw;
  }
  return shape;
}

std::size_t write_gridlabd(std::ostream& out, const MeterRows& rows, const MeterSeriesInfo& info,
                           const PowerUnit& unit, int decimals) {
  std::size_t points = 0;
  std::int64_t first_ns = 0, last_length_ns = 0;
  rows([&](const MeterRow& r) {
    if (points++ == 0) first_ns = r.start_ns;
    last_length_ns = r.length_ns;
  });
  out << "# fleetwatt: " << describe(info, points, first_ns, last_length_ns) << '\n';
  out << "# value: real power in " << unit.name << "; time stamps in UTC\n";
  std::size_t lines = 0;
  std::int64_t previous_ns = 0;
  rows([&](const MeterRow& r) {
    if (lines == 0)
      out << gridlabd_time(info.clock, r.start_ns);
    else
      out << '+' << (r.start_ns - previous_ns) / 1'000'000'000 << 's';
    out << ',' << fixed_value(r.watts / unit.watts, decimals) << '\n';
    previous_ns = r.start_ns;
    ++lines;
  });
  return lines;
}

}  // namespace fleetwatt::tools
