// The [smoothing] keys: declaration, check and reading (see smoothing_config.hpp).
#include "fleetwatt/sim/fleet/smoothing_config.hpp"

#include <fmt/format.h>

namespace fleetwatt::sim {

using core::ConfigError;
using core::ParamSet;
using core::ParamSpec;
using core::ParamSpecs;
using core::ParamType;
using jobs::parse_smoothing_mode;
using jobs::SmoothingMode;

const ParamSpecs& smoothing_params() {
  static const SmoothingConfig d;
  static const ParamSpecs specs{
      {"mode",
       ParamType::string,
       std::string("off"),
       "",
       "",
       "off; smooth: the GPU holds the floor and slews its power (NVIDIA power smoothing); burn: software "
       "fills communication, bubble and checkpoint phases with dummy work up to the floor",
       {}},
      {"floor_fraction",
       ParamType::number,
       d.floor_fraction,
       "",
       "",
       "a running job's GPUs never draw less than this share of their TDP (0 to 1)",
       {}},
      {"ramp_up_w_per_s",
       ParamType::number,
       d.ramp_up_w_per_s,
       "",
       "W/s",
       "smooth: per GPU, how fast the held level follows a rise of the work (the work itself never waits)",
       {}},
      {"ramp_down_w_per_s",
       ParamType::number,
       d.ramp_down_w_per_s,
       "",
       "W/s",
       "smooth: per GPU, how fast the held level falls towards the work or the floor after a drop",
       {}},
      {"hysteresis_s",
       ParamType::number,
       d.hysteresis_s,
       "",
       "s",
       "smooth: how long the held level waits after a drop before it ramps down",
       {}},
  };
  return specs;
}

SmoothingConfig parse_smoothing_config(const ParamSet& raw) {
  const ParamSet p = raw.checked(smoothing_params());
  SmoothingConfig c;
  c.where = p.where();
  const std::string mode = p.get_string("mode");
  if (auto m = parse_smoothing_mode(mode))
    c.mode = *m;
  else
    throw ConfigError(p.where_of("mode"), p.dotted("mode"),
                      fmt::format("unknown mode '{}' (known: off, smooth, burn)", mode));
  c.floor_fraction = p.get_double("floor_fraction");
  if (!(c.floor_fraction >= 0.0 && c.floor_fraction <= 1.0))
    throw ConfigError(p.where_of("floor_fraction"), p.dotted("floor_fraction"),
                      fmt::format("must be between 0 and 1 (a share of the TDP), got {}", c.floor_fraction));
  c.ramp_up_w_per_s = p.get_positive("ramp_up_w_per_s");
  c.ramp_down_w_per_s = p.get_positive("ramp_down_w_per_s");
  c.hysteresis_s = p.get_non_negative("hysteresis_s");
  return c;
}

}  // namespace fleetwatt::sim
