// Facility power from IT power and the outdoor weather: the cooling kinds a scenario's [facility] cooling
// names, their declared parameters (for key checking and `fleetwatt list`), and the weather-driven model.
//
// "constant": facility = IT x [facility] pue (the ledger's own path; this file is not used).
// "weather":  facility = IT + electrical losses + fans and pumps + chiller, evaluated per weather step:
//   x = IT / design IT                                   (IT load fraction)
//   electrical losses L = design x (e0 + e1 x + e2 x^2)  (UPS and distribution: no-load, proportional and
//                                                         square-law terms)
//   heat to remove Q = IT + L; part load p = Q / Q_design, Q_design = design x (1 + e0 + e1 + e2)
//   fans and pumps F = f_fp Q_design (m + (1 - m) p)^3   (affinity law above a minimum flow fraction m)
//   mechanical share s = clamp((T - T_free) / (T_none - T_free), 0, 1), T the condenser-side outdoor
//                        temperature (dry or wet bulb): all free cooling at or below T_free, none at or
//                        above T_none, a linear blend between (partial economiser)
//   chiller COP = eta T_evap / max(T + approach - T_evap, min lift)  (a constant fraction eta of Carnot,
//                 kelvin), eta fitted so the COP is the rated COP at the rating condition
//   chiller power C = s Q / COP x (1 + k (1 - s p))      (part-load penalty k)
//   facility = IT + L + F + C
// Weather is a step function, IT power is piecewise constant between events, so facility power is
// piecewise constant between both kinds of change: the ledger and the grid meter cut their integrals at
// weather steps and stay exact. Parameter values and their sources: docs/scenario.md
// "Facility cooling model".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fleetwatt/core/registry.hpp"
#include "fleetwatt/core/time.hpp"
#include "fleetwatt/jobs/param_set.hpp"
#include "fleetwatt/sim/power/weather.hpp"

namespace fleetwatt::sim {

using core::Time;

/// The weather model's parameters (one preset per design; every value can be overridden in [facility]).
struct CoolingDesign {
  std::string design = "air";      ///< "air" or "liquid": the preset the defaults come from
  bool wet_bulb = false;           ///< condenser side follows the wet bulb (cooling tower), else the dry bulb
  double design_it_W = 0.0;        ///< 0: the fleet's peak IT power (every GPU at TDP plus node base power)
  double ups_fixed = 0.0;          ///< e0: no-load losses, fraction of design IT
  double ups_proportional = 0.0;   ///< e1
  double ups_square = 0.0;         ///< e2
  double fan_pump = 0.0;           ///< f_fp: fan and pump power at design heat load, fraction of it
  double min_flow = 0.0;           ///< m
  double free_cooling_c = 0.0;     ///< T_free
  double no_free_cooling_c = 0.0;  ///< T_none
  double chiller_cop_rated = 0.0;
  double rated_outdoor_c = 0.0;
  double rated_evaporator_c = 0.0;
  double evaporator_c = 0.0;
  double condenser_approach_k = 0.0;
  double min_lift_k = 0.0;
  double part_load_penalty = 0.0;  ///< k
};

/// How a cooling kind reads its keys: the [facility] table already checked against the kind's parameters,
/// into the design it runs ("constant" gives the empty design: the ledger's own path).
using CoolingFactory = CoolingDesign (*)(const jobs::ParamSet& checked);
/// A registered cooling kind: name, one line, the [facility] keys it reads besides pue, carbon_kg_per_kwh,
/// cooling, weather_csv and weather_start, and how it reads them.
using CoolingKind = core::RegistryEntry<CoolingFactory>;
using CoolingKinds = core::Registry<CoolingFactory>;

/// Every cooling kind, in a stable order ("constant" first, the default).
[[nodiscard]] const CoolingKinds& cooling_kinds();
/// The keys every cooling kind shares ([facility] pue, weather_csv, ...), for `fleetwatt list`.
[[nodiscard]] const jobs::ParamSpecs& facility_common_params();

/// The preset of design "air" or "liquid" (nothing overridden, design_it_W 0).
[[nodiscard]] CoolingDesign cooling_preset(const std::string& design);
/// Checks `params` against kind `kind`'s declaration (ConfigError at the first unknown key or bad value)
/// and returns the design: the preset named by `design`, with the keys given overriding it.
/// `kind_origin` is where the kind was named, for an unknown one.
[[nodiscard]] CoolingDesign cooling_design(const std::string& kind, const jobs::SourceLocation& kind_origin,
                                           const jobs::ParamSet& params);

/// What facility power is made of at one IT power and one outdoor temperature (W).
struct FacilityBreakdown {
  double it_W = 0.0, electrical_W = 0.0, fans_pumps_W = 0.0, chiller_W = 0.0;
  [[nodiscard]] double facility_W() const noexcept { return it_W + electrical_W + fans_pumps_W + chiller_W; }
};

/// The weather-driven model over one weather series. Immutable once built: safe to share across runs.
class FacilityModel {
 public:
  /// `design.design_it_W` must be positive. Throws ConfigError when the design needs a wet bulb and the
  /// weather has none, or when its numbers cannot work (T_none <= T_free, a COP <= 0, ...).
  FacilityModel(CoolingDesign design, const sim::Weather& weather);

  /// Facility power at IT power `it_W` and condenser-side outdoor temperature `outdoor_C`.
  [[nodiscard]] FacilityBreakdown breakdown(double it_W, double outdoor_C) const;
  /// Facility power at IT power `it_W` during weather step `step`.
  [[nodiscard]] double power_W(double it_W, std::size_t step) const {
    return breakdown(it_W, outdoor_C_[step]).facility_W();
  }
  /// The weather step in force at t (step 0 also before the first row).
  [[nodiscard]] std::size_t step_at(Time t) const;
  /// Where step `step` ends (the next row's time); Time::max() for the last.
  [[nodiscard]] Time step_end(std::size_t step) const;
  [[nodiscard]] std::size_t steps() const noexcept { return outdoor_C_.size(); }
  [[nodiscard]] double outdoor_C(std::size_t step) const { return outdoor_C_[step]; }
  [[nodiscard]] const CoolingDesign& design() const noexcept { return design_; }
  /// The chiller's second-law efficiency eta (fraction of Carnot), fitted at the rating condition.
  [[nodiscard]] double carnot_fraction() const noexcept { return eta_; }

 private:
  CoolingDesign design_;
  std::vector<Time> start_;  ///< start_[k]: when step k begins (start_[0] is its row's time, maybe > 0)
  std::vector<double> outdoor_C_;
  double eta_ = 0.0;
};

}  // namespace fleetwatt::sim
