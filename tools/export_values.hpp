// How `fleetwatt export` writes a value: the power unit a planner asked for (W, kW, MW) and a fixed number of
// decimals, the meter's resolution. By default every power is written to 0.1 W whatever the unit (4 decimals
// in kW, 7 in MW), carbon and cost to 4 decimals: more digits than a revenue meter keeps, none of the
// 17-digit noise of a double's shortest form. `--digits N` sets the decimals of every value column.
#pragma once

#include <optional>
#include <string>

namespace fleetwatt::tools {

/// A unit of power: its name as written in headers and its size in watts.
struct PowerUnit {
  std::string name;  ///< "W", "kW" or "MW"
  double watts = 1e3;
};

/// The unit named `name` (W, kW or MW), or nothing.
[[nodiscard]] std::optional<PowerUnit> power_unit(const std::string& name);

/// Decimals that resolve `resolution` in a unit of `unit_size` (both in one unit): 0.1 W in kW is 4, in MW 7.
[[nodiscard]] int decimals_for(double resolution, double unit_size);

/// The power resolution every export keeps by default, in watts.
inline constexpr double kPowerResolutionW = 0.1;
/// Decimals of carbon (kg) and cost columns by default.
inline constexpr int kTotalsDecimals = 4;

/// `v` with `decimals` digits after the point ("2345.6789"); NaN as an empty field; a value that rounds to
/// zero as "0" without a sign, so a column never shows "-0.0000".
[[nodiscard]] std::string fixed_value(double v, int decimals);

/// A CSV field: quoted when it holds a comma, a quote or a line break (quotes doubled).
[[nodiscard]] std::string csv_field(const std::string& s);

}  // namespace fleetwatt::tools
