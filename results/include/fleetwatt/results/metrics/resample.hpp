// Exact resampling of stored interval series onto clock-aligned rows (`fleetwatt export`). A stored value
// covers [i x interval, (i + 1) x interval), the last one ending at the horizon; each row takes every stored
// interval in proportion to its overlap. Mean columns (powers) become overlap-weighted means, so a row's mean
// x its length is exactly the energy the stored series puts in it; total columns (carbon, cost per interval)
// are split by the fraction of the interval inside the row. Rows need not be a multiple of the stored
// interval: a row edge inside a stored interval splits it by time (the stored mean is all that is known of
// it). Rows are aligned to the wall clock like the grid metrics' windows (15-min rows at :00, :15, ...,
// daily rows at local midnight), so the first and last rows may be partial: their means are over the part
// inside [0, horizon), and they say how long that part is.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "fleetwatt/results/metrics/wall_clock.hpp"

namespace fleetwatt::results {

struct ResampledRow {
  std::int64_t start_ns = 0;   ///< the row's start, clipped to 0
  std::int64_t length_ns = 0;  ///< the part of the row inside [0, horizon)
  std::vector<double> values;  ///< one per column: a mean, or a total
};

class Resampler {
 public:
  /// `is_total[c]`: column c holds per-interval totals (else interval means). Rows of `width_ns`, aligned to
  /// `clock`; `on_row` receives each finished row in time order.
  Resampler(std::int64_t stored_interval_ns, std::int64_t horizon_ns, std::int64_t width_ns,
            const WallClock& clock, std::vector<bool> is_total,
            std::function<void(const ResampledRow&)> on_row);
  /// The values of the next stored interval (one per column), in order from interval 0.
  void add(std::span<const double> values);
  /// Ends the last row.
  void finish();

 private:
  void emit();
  std::int64_t interval_ns_, horizon_ns_, width_ns_, phase_ns_;
  std::vector<bool> is_total_;
  std::function<void(const ResampledRow&)> on_row_;
  std::int64_t next_ns_ = 0;  // start of the next stored interval
  std::int64_t row_ = -1;     // index of the open row
  ResampledRow open_;
};

/// Parses an interval such as "1s", "15min", "1h", "1d", "500ms", "0.5s" (a positive number, then ns, us, ms,
/// s, min, h or d) into nanoseconds (rounded to the nearest); nothing when it is not one or is under 1 ns.
[[nodiscard]] std::optional<std::int64_t> parse_interval(std::string_view text);

}  // namespace fleetwatt::results
