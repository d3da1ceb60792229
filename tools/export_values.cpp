// Units and rounding of exported values (export_values.hpp).
#include "export_values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fleetwatt::tools {

std::optional<PowerUnit> power_unit(const std::string& name) {
  if (name == "W") return PowerUnit{"W", 1.0};
  if (name == "kW") return PowerUnit{"kW", 1e3};
  if (name == "MW") return PowerUnit{"MW", 1e6};
  return std::nullopt;
}

int decimals_for(double resolution, double unit_size) {
  // The smallest d with 10^-d unit <= resolution; a small tolerance keeps log10(1e4) from reading 4.0000001.
  const double d = std::log10(unit_size / resolution);
  return std::max(0, static_cast<int>(std::ceil(d - 1e-9)));
}

std::string fixed_value(double v, int decimals) {
  if (std::isnan(v)) return {};
  std::string text = fmt::format("{:.{}f}", v, decimals);
  if (text.front() == '-' && text.find_first_not_of("-0.") == std::string::npos) text.erase(0, 1);
  return text;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace fleetwatt::tools
