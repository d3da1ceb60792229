// The one way a reader turns a parsed number into an integer. A cast of NaN, an infinity or a value outside
// the target type's range is undefined behaviour in C++, and a reader's numbers are whatever a user's file
// says: every float-to-integer conversion of a parsed value goes through here (grep `checked_integer`), so
// that a bad value is a located error at its key rather than a silently wrong count or a sanitizer report.
// The caller rounds first when it means to round (std::round, std::ceil); a fractional value is truncated
// toward zero, as a cast would.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::core {

/// v truncated toward zero as T, or nothing when v is NaN, infinite or outside [lo, hi].
template <class T>
[[nodiscard]] std::optional<T> integer_in_range(double v, T lo = std::numeric_limits<T>::lowest(),
                                                T hi = std::numeric_limits<T>::max()) noexcept {
  static_assert(std::is_integral_v<T>, "checked_integer converts to an integer type");
  if (!std::isfinite(v)) return std::nullopt;
  const double t = std::trunc(v);
  // 2^digits is exact as a double, max() (2^digits - 1) may not be: compare against the power of two.
  const double above = std::ldexp(1.0, std::numeric_limits<T>::digits);
  const double below = std::is_signed_v<T> ? -above : 0.0;
  if (t < below || t >= above) return std::nullopt;
  const T i = static_cast<T>(t);
  if (i < lo || i > hi) return std::nullopt;
  return i;
}

/// v as T (see integer_in_range); otherwise an Error (a core::InputError: ConfigError, TraceFormatError) at
/// `where` and `field`: "FIELD must be an integer from LO to HI, got V".
template <class T, class Error = ConfigError>
[[nodiscard]] T checked_integer(double v, const SourceLocation& where, const std::string& field,
                                T lo = std::numeric_limits<T>::lowest(),
                                T hi = std::numeric_limits<T>::max()) {
  if (const auto i = integer_in_range<T>(v, lo, hi)) return *i;
  throw Error(where, field, fmt::format("must be an integer from {} to {}, got {}", lo, hi, v));
}

}  // namespace fleetwatt::core
