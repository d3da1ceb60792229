// The cooling kinds' declarations, the air and liquid presets with their sources, and the weather-driven
// facility power model (see facility_model.hpp for the equations).
//
// Preset values, and where each comes from (docs/scenario.md "Facility cooling model" repeats this table):
// - chiller_cop_rated 2.80: ASHRAE 90.1-2016 Table 6.8.1-3, air-cooled chiller >= 150 tons, Path A full
//   load 9.562 EER (Btu/Wh) / 3.412 = 2.80 W/W, at the AHRI 550/590 standard rating condition:
//   rated_outdoor_c 35 (95 F entering condenser air) and rated_evaporator_c 6.7 (44 F leaving chilled water).
// - air evaporator_c 12: chilled water supply raised above AHRI's 6.7 C, as ASHRAE TC 9.9's recommended
//   server inlet range of 18-27 C allows. ASSUMPTION (a typical elevated set point, not a quoted figure).
// - liquid evaporator_c 30: direct-to-chip facility water just under ASHRAE TC 9.9's liquid-cooling class
//   W32 (facility supply water up to 32 C). The class is sourced; the 2 K margin is an ASSUMPTION.
// - free_cooling_c / no_free_cooling_c: the economiser carries the whole load when outdoor air is 5 K (air)
//   or 6 K (liquid, dry coolers) below the supply temperature and none of it at the supply temperature.
//   The approaches are ASSUMPTIONS.
// - condenser_approach_k 10 and min_lift_k 10: refrigerant condensing 10 K above outdoor air, and a lift
//   floor so the Carnot COP stays finite. ASSUMPTIONS.
// - ups_fixed/proportional/square 0.01/0.02/0.01: the three-term loss model of Rasmussen, "Electrical
//   Efficiency Modeling for Data Centers", APC/Schneider Electric White Paper 113 (no-load, proportional,
//   square-law losses); values chosen so the electrical chain is 96 % efficient at full load and 94 % at
//   25 % load, the range of double-conversion UPS datasheets. ASSUMPTION (values not taken from WP 113).
// - fan_pump 0.08 (air: CRAH fans, chilled-water and condenser pumps) and 0.04 (liquid: CDU pumps and
//   dry-cooler fans) of design heat load; min_flow 0.3 (a fan or pump VFD's usual minimum speed).
//   ASSUMPTIONS. The cube law above min_flow is the fan affinity law.
// - part_load_penalty 0.25: chiller efficiency 25 % worse near zero load than at full load at the same
//   lift, the direction of DOE-2/EnergyPlus EIR-fPLR curves. ASSUMPTION (not a fitted curve).
// With these, the air preset's PUE at full IT load is 1.12 with full free cooling and 1.44 at 35 C; the
// liquid preset's 1.08 and 1.22. The Uptime Institute's survey average (about 1.58 in 2023) is higher
// because it includes older facilities at partial load.
#include "fleetwatt/sim/power/facility_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fleetwatt::sim {
namespace {

using jobs::ParamSpec;
using jobs::ParamType;

constexpr double kZeroCelsius = 273.15;

// A number parameter whose default depends on the design: shown as "air A, liquid L".
ParamSpec per_design(std::string name, std::string unit, std::string doc, double air, double liquid) {
  return ParamSpec{std::move(name), ParamType::number, {}, fmt::format("air {:g}, liquid {:g}", air, liquid),
                   std::move(unit), std::move(doc),    {}};
}

jobs::ParamSpecs weather_params() {
  const CoolingDesign a = cooling_preset("air"), l = cooling_preset("liquid");
  return {
      {"design",
       ParamType::string,
       std::string("air"),
       "",
       "",
       "preset: air (chilled-water CRAHs, air-cooled chiller, economiser) or liquid (direct-to-chip warm "
       "water, dry coolers, trim chiller)",
       {}},
      {"condenser",
       ParamType::string,
       std::string("dry"),
       "",
       "",
       "outdoor temperature the condenser side sees: dry (dry bulb) or wet (wet bulb; the weather file needs "
       "wet_bulb_c or relative_humidity_pct)",
       {}},
      {"design_it_kw",
       ParamType::number,
       {},
       "fleet peak IT",
       "kW",
       "design IT load: losses and fan power scale with it (default: every GPU at TDP plus node base)",
       {}},
      per_design("ups_fixed_fraction", "", "UPS and distribution no-load loss, fraction of design IT",
                 a.ups_fixed, l.ups_fixed),
      per_design("ups_proportional_fraction", "", "loss proportional to IT load (fraction of it)",
                 a.ups_proportional, l.ups_proportional),
      per_design("ups_square_fraction", "", "square-law loss at design load, fraction of design IT",
                 a.ups_square, l.ups_square),
      per_design("fan_pump_fraction", "", "fan and pump power at design heat load, fraction of it",
                 a.fan_pump, l.fan_pump),
      per_design("min_flow_fraction", "", "lowest fan/pump flow, fraction of design", a.min_flow, l.min_flow),
      per_design("free_cooling_c", "degC", "outdoor temperature at or below which the economiser carries all",
                 a.free_cooling_c, l.free_cooling_c),
      per_design("no_free_cooling_c", "degC", "outdoor temperature at or above which the chiller carries all",
                 a.no_free_cooling_c, l.no_free_cooling_c),
      per_design("chiller_cop_rated", "", "chiller COP at the rating condition (ASHRAE 90.1 minimum)",
                 a.chiller_cop_rated, l.chiller_cop_rated),
      per_design("rated_outdoor_c", "degC", "rating condition's outdoor temperature (AHRI 550/590)",
                 a.rated_outdoor_c, l.rated_outdoor_c),
      per_design("rated_evaporator_c", "degC", "rating condition's leaving chilled water (AHRI 550/590)",
                 a.rated_evaporator_c, l.rated_evaporator_c),
      per_design("evaporator_c", "degC", "chilled/facility water supply temperature the chiller makes",
                 a.evaporator_c, l.evaporator_c),
      per_design("condenser_approach_k", "K", "condensing temperature above the outdoor temperature",
                 a.condenser_approach_k, l.condenser_approach_k),
      per_design("min_lift_k", "K", "smallest lift in the COP formula (keeps it finite)", a.min_lift_k,
                 l.min_lift_k),
      per_design("part_load_penalty", "", "extra chiller power per unit cooling near zero load",
                 a.part_load_penalty, l.part_load_penalty),
  };
}

}  // namespace

CoolingDesign cooling_preset(const std::string& design) {
  CoolingDesign d;
  d.design = design;
  d.ups_fixed = 0.01;
  d.ups_proportional = 0.02;
  d.ups_square = 0.01;
  d.min_flow = 0.3;
  d.chiller_cop_rated = 2.80;
  d.rated_outdoor_c = 35.0;
  d.rated_evaporator_c = 6.7;
  d.condenser_approach_k = 10.0;
  d.min_lift_k = 10.0;
  d.part_load_penalty = 0.25;
  if (design == "liquid") {
    d.fan_pump = 0.04;
    d.evaporator_c = 30.0;
    d.free_cooling_c = 24.0;
    d.no_free_cooling_c = 30.0;
  } else {
    d.fan_pump = 0.08;
    d.evaporator_c = 12.0;
    d.free_cooling_c = 7.0;
    d.no_free_cooling_c = 12.0;
  }
  return d;
}

namespace {

// The "weather" kind's design: its preset with the keys the table sets.
CoolingDesign weather_design(const jobs::ParamSet& p) {
  const std::string design = p.get_string("design");
  if (design != "air" && design != "liquid")
    throw jobs::ConfigError(p.where_of("design"), p.dotted("design"),
                            fmt::format("'{}' is not air or liquid", design));
  CoolingDesign d = cooling_preset(design);
  const std::string condenser = p.get_string("condenser");
  if (condenser != "dry" && condenser != "wet")
    throw jobs::ConfigError(p.where_of("condenser"), p.dotted("condenser"),
                            fmt::format("'{}' is not dry or wet", condenser));
  d.wet_bulb = condenser == "wet";
  if (p.has("design_it_kw")) d.design_it_W = p.get_positive("design_it_kw", 0.0) * 1e3;
  auto fraction = [&](const char* key, double& v) {
    if (!p.has(key)) return;
    v = p.get_double(key, v);
    if (!(v >= 0.0 && v <= 1.0))
      throw jobs::ConfigError(p.where_of(key), p.dotted(key), fmt::format("{:g} is outside 0..1", v));
  };
  fraction("ups_fixed_fraction", d.ups_fixed);
  fraction("ups_proportional_fraction", d.ups_proportional);
  fraction("ups_square_fraction", d.ups_square);
  fraction("fan_pump_fraction", d.fan_pump);
  fraction("min_flow_fraction", d.min_flow);
  fraction("part_load_penalty", d.part_load_penalty);
  for (auto [key, v] : {std::pair{"free_cooling_c", &d.free_cooling_c},
                        {"no_free_cooling_c", &d.no_free_cooling_c},
                        {"rated_outdoor_c", &d.rated_outdoor_c},
                        {"rated_evaporator_c", &d.rated_evaporator_c},
                        {"evaporator_c", &d.evaporator_c},
                        {"condenser_approach_k", &d.condenser_approach_k}})
    if (p.has(key)) *v = p.get_double(key, *v);
  if (p.has("chiller_cop_rated")) d.chiller_cop_rated = p.get_positive("chiller_cop_rated", 0.0);
  if (p.has("min_lift_k")) d.min_lift_k = p.get_positive("min_lift_k", 0.0);
  if (!(d.no_free_cooling_c > d.free_cooling_c))
    throw jobs::ConfigError(p.where_of(p.has("no_free_cooling_c") ? "no_free_cooling_c" : "free_cooling_c"),
                            p.dotted("no_free_cooling_c"),
                            fmt::format("{:g} degC must be above free_cooling_c ({:g} degC)",
                                        d.no_free_cooling_c, d.free_cooling_c));
  if (!(d.rated_outdoor_c + d.condenser_approach_k - d.rated_evaporator_c > 0.0))
    throw jobs::ConfigError(p.where(), p.dotted("rated_outdoor_c"),
                            "the rating condition needs condensing above evaporating");
  return d;
}

}  // namespace

const CoolingKinds& cooling_kinds() {
  static const CoolingKinds kinds(
      "kind", {
                  {"constant",
                   "facility power = IT power x [facility] pue at every instant",
                   {},
                   [](const jobs::ParamSet&) { return CoolingDesign{}; }},
                  {"weather",
                   "PUE by the hour from the outdoor weather (weather_csv): UPS losses, fans "
                   "and pumps, economiser, chiller COP from the condenser temperature and "
                   "part load",
                   weather_params(), weather_design},
              });
  return kinds;
}

const jobs::ParamSpecs& facility_common_params() {
  static const jobs::ParamSpecs specs{
      {"cooling", ParamType::string, std::string("constant"), "", "", "cooling kind (this table)", {}},
      {"pue", ParamType::number, 1.0, "", "", "constant cooling: facility power / IT power", {}},
      {"carbon_kg_per_kwh",
       ParamType::number,
       0.0,
       "",
       "kg/kWh",
       "grid carbon intensity without [grid.carbon]",
       {}},
      {"weather_csv",
       ParamType::string,
       {},
       "required for weather",
       "",
       "hourly weather CSV: time, dry_bulb_c, optionally wet_bulb_c or relative_humidity_pct",
       {}},
      {"weather_start",
       ParamType::string,
       {},
       "the first row",
       "",
       "the weather time that simulation time zero maps to (ISO 8601 or seconds)",
       {}},
  };
  return specs;
}

CoolingDesign cooling_design(const std::string& kind, const jobs::SourceLocation& kind_origin,
                             const jobs::ParamSet& raw) {
  const CoolingKind& k = cooling_kinds().at(kind, kind_origin, "facility.cooling");
  return k.make(raw.checked(k.params));
}

FacilityModel::FacilityModel(CoolingDesign design, const sim::Weather& weather) : design_(std::move(design)) {
  if (!(design_.design_it_W > 0.0))
    throw std::invalid_argument("facility model: design IT power must be positive");
  if (weather.t_s.empty()) throw std::invalid_argument("facility model: no weather");
  if (design_.wet_bulb && !weather.has_wet_bulb())
    throw jobs::ConfigError({weather.source, 0, 0}, "facility.condenser",
                            "condenser = \"wet\" needs a wet_bulb_c or relative_humidity_pct column");
  const auto& temps = design_.wet_bulb ? weather.wet_bulb_C : weather.dry_bulb_C;
  start_.reserve(weather.t_s.size());
  for (std::size_t k = 0; k < weather.t_s.size(); ++k) {
    const Time t = Time::from_seconds(weather.t_s[k]);
    // Rows that round to the same nanosecond: the later one holds.
    if (!start_.empty() && t <= start_.back()) {
      outdoor_C_.back() = temps[k];
      continue;
    }
    start_.push_back(t);
    outdoor_C_.push_back(temps[k]);
  }
  // Fit eta at the rating condition: COP_rated = eta T_evap / (T_out + approach - T_evap), kelvin.
  const double lift =
      std::max(design_.rated_outdoor_c + design_.condenser_approach_k - design_.rated_evaporator_c,
               design_.min_lift_k);
  eta_ = design_.chiller_cop_rated * lift / (design_.rated_evaporator_c + kZeroCelsius);
}

FacilityBreakdown FacilityModel::breakdown(double it_W, double outdoor_C) const {
  const CoolingDesign& d = design_;
  FacilityBreakdown b;
  b.it_W = it_W;
  const double D = d.design_it_W;
  const double x = it_W / D;
  b.electrical_W = D * (d.ups_fixed + d.ups_proportional * x + d.ups_square * x * x);
  const double q = it_W + b.electrical_W;
  const double q_design = D * (1.0 + d.ups_fixed + d.ups_proportional + d.ups_square);
  const double p = q / q_design;
  const double flow = d.min_flow + (1.0 - d.min_flow) * p;
  b.fans_pumps_W = d.fan_pump * q_design * flow * flow * flow;
  const double share =
      std::clamp((outdoor_C - d.free_cooling_c) / (d.no_free_cooling_c - d.free_cooling_c), 0.0, 1.0);
  if (share > 0.0) {
    const double lift = std::max(outdoor_C + d.condenser_approach_k - d.evaporator_c, d.min_lift_k);
    const double cop = eta_ * (d.evaporator_c + kZeroCelsius) / lift;
    b.chiller_W = share * q / cop * (1.0 + d.part_load_penalty * (1.0 - std::min(share * p, 1.0)));
  }
  return b;
}

std::size_t FacilityModel::step_at(Time t) const {
  const auto it = std::upper_bound(start_.begin(), start_.end(), t);
  return it == start_.begin() ? 0 : static_cast<std::size_t>(it - start_.begin()) - 1;
}

Time FacilityModel::step_end(std::size_t step) const {
  return step + 1 < start_.size() ? start_[step + 1] : Time::max();
}

}  // namespace fleetwatt::sim
