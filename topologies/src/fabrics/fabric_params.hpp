// Declaring [topology] keys (name, type, default, unit, doc) and the units they are written in: shared by
// the common keys (topology_config.cpp) and each fabric kind's own (fabrics/).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "fleetwatt/core/param_set.hpp"

namespace fleetwatt::topologies::params {

inline constexpr double kGbps = 1e9 / 8.0;  // bytes/s per Gb/s
inline constexpr double kMicro = 1e-6;

inline core::ParamSpec num(std::string name, double value, std::string unit, std::string doc) {
  return {std::move(name), core::ParamType::number, value, "", std::move(unit), std::move(doc), {}};
}
inline core::ParamSpec count(std::string name, std::uint32_t value, std::string doc) {
  return {std::move(name), core::ParamType::integer, std::int64_t{value}, "", "", std::move(doc), {}};
}
/// A key whose default is worked out at run time (`shown` says how).
inline core::ParamSpec computed(std::string name, core::ParamType type, std::string shown, std::string unit,
                                std::string doc) {
  return {std::move(name), type, {}, std::move(shown), std::move(unit), std::move(doc), {}};
}
inline core::ParamSpec choice(std::string name, std::string value, std::string doc) {
  return {std::move(name), core::ParamType::string, std::move(value), "", "", std::move(doc), {}};
}

}  // namespace fleetwatt::topologies::params
