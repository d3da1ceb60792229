// Simulated time: integer nanoseconds since scenario start. A floating-point clock needs epsilons and loses
// short phases late in long runs; int64 ns spans ~292 years exactly. Seconds appear only at the boundary.
// Part of core (below jobs) so that every library can name a time; sim re-exports it as sim::Time.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace fleetwatt::core {

/// The largest magnitude, in seconds, that an input time or duration (a scenario key or a CSV column ending
/// in `_s`) may have: about 31.7 years, so that the sums the engine forms (a submission time plus run times,
/// restarts and a horizon) stay far inside the clock's ~292 years. Checked where the input is read, so a
/// value beyond it is bad input at its line and key rather than a failure mid-run.
inline constexpr double kMaxInputSeconds = 1e9;

/// A span of simulated time.
class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration from_ns(std::int64_t ns) { return Duration(ns); }
  /// Rounds to the nearest nanosecond; throws std::out_of_range for NaN or spans beyond ~292 years.
  static Duration from_seconds(double s);
  static constexpr Duration zero() { return Duration(0); }
  static constexpr Duration max() { return Duration(std::numeric_limits<std::int64_t>::max()); }

  [[nodiscard]] constexpr std::int64_t ns() const { return ns_; }
  [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ns_) / 1e9; }

  /// Checked addition: throws std::overflow_error rather than wrapping. Inline: every event adds to the
  /// clock.
  friend constexpr Duration operator+(Duration a, Duration b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a.ns_, b.ns_, &r)) throw std::overflow_error("simulated time overflow");
    return Duration(r);
  }
  /// Checked subtraction, like addition: a wrapped clock would silently reorder events.
  friend constexpr Duration operator-(Duration a, Duration b) {
    std::int64_t r = 0;
    if (__builtin_sub_overflow(a.ns_, b.ns_, &r)) throw std::overflow_error("simulated time overflow");
    return Duration(r);
  }
  friend Duration operator*(Duration a, std::int64_t k);
  Duration& operator+=(Duration b) { return *this = *this + b; }
  friend constexpr auto operator<=>(Duration, Duration) = default;

 private:
  constexpr explicit Duration(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

/// A point of simulated time, measured from the scenario's start.
class Time {
 public:
  constexpr Time() = default;
  static constexpr Time from_ns(std::int64_t ns) { return Time(ns); }
  static Time from_seconds(double s) { return Time(Duration::from_seconds(s).ns()); }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }

  [[nodiscard]] constexpr std::int64_t ns() const { return ns_; }
  [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ns_) / 1e9; }
  [[nodiscard]] constexpr Duration since_start() const { return Duration::from_ns(ns_); }

  friend Time operator+(Time t, Duration d) { return Time((t.since_start() + d).ns()); }
  friend constexpr Duration operator-(Time a, Time b) { return a.since_start() - b.since_start(); }
  friend constexpr auto operator<=>(Time, Time) = default;

 private:
  constexpr explicit Time(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

/// "3d 04:05:06.789" style rendering for progress lines and messages.
[[nodiscard]] std::string format_time(Time t);

}  // namespace fleetwatt::core
