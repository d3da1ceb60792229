// Keyword arguments of the in-process calls (predict(), serve()) read as the command's options: a string, a
// number or a whole number, or a ConfigError naming the call and the keyword.
#pragma once

#include <fmt/format.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "fleetwatt/core/checked_integer.hpp"
#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::python {

inline jobs::ConfigError keyword_error(const char* origin, const std::string& key,
                                       const std::string& message) {
  return jobs::ConfigError({origin, 0, 0}, key, message);
}

inline std::string keyword_repr(const pybind11::handle& v) {
  return pybind11::str(pybind11::repr(v)).cast<std::string>();
}

inline std::string as_text(const char* origin, const std::string& key, const pybind11::handle& v) {
  if (!pybind11::isinstance<pybind11::str>(v))
    throw keyword_error(origin, key, fmt::format("expects a string, got {}", keyword_repr(v)));
  return v.cast<std::string>();
}

inline double as_number(const char* origin, const std::string& key, const pybind11::handle& v) {
  if (pybind11::isinstance<pybind11::bool_>(v) ||
      !(pybind11::isinstance<pybind11::int_>(v) || pybind11::isinstance<pybind11::float_>(v)))
    throw keyword_error(origin, key, fmt::format("expects a number, got {}", keyword_repr(v)));
  return v.cast<double>();
}

template <typename Int>
Int as_integer(const char* origin, const std::string& key, const pybind11::handle& v) {
  const double x = as_number(origin, key, v);
  // Compared as integers: int64's largest value rounds up to 2^63 as a double, which the cast cannot hold.
  const auto i = x == std::floor(x) ? core::integer_in_range<Int>(x) : std::nullopt;
  if (!i)
    throw keyword_error(
        origin, key,
        fmt::format("expects a whole number from {} to {}, got {}", std::numeric_limits<Int>::min(),
                    std::numeric_limits<Int>::max(), keyword_repr(v)));
  return *i;
}

/// model_shape as `--model-shape` takes it (runs/model_shape_text.hpp): a "layers=..,hidden=.." text, or a
/// dict of the same keys, written out as that text (a value that is not a whole number refused at its key).
inline std::string shape_text(const char* origin, const std::string& key, const pybind11::handle& v) {
  if (!pybind11::isinstance<pybind11::dict>(v)) return as_text(origin, key, v);
  std::string out;
  for (const auto& [k, x] : v.cast<pybind11::dict>()) {
    const std::string name = pybind11::str(k).cast<std::string>();
    const std::string value = pybind11::isinstance<pybind11::bool_>(x)
                                  ? (x.cast<bool>() ? "true" : "false")
                                  : fmt::format("{}", as_integer<std::uint32_t>(origin, name, x));
    out += (out.empty() ? "" : ",") + name + "=" + value;
  }
  return out;
}

}  // namespace fleetwatt::python
