// Overlap-weighted resampling onto clock-aligned rows, in integer nanoseconds (edges compare exactly).
#include "fleetwatt/results/metrics/resample.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

namespace fleetwatt::results {

namespace {
// 128-bit: nanoseconds since 1970 overflow 64 bits in 2262.
__extension__ using Wide = __int128;
}  // namespace

Resampler::Resampler(std::int64_t stored_interval_ns, std::int64_t horizon_ns, std::int64_t width_ns,
                     const WallClock& clock, std::vector<bool> is_total,
                     std::function<void(const ResampledRow&)> on_row)
    : interval_ns_(stored_interval_ns),
      horizon_ns_(horizon_ns),
      width_ns_(width_ns),
      is_total_(std::move(is_total)),
      on_row_(std::move(on_row)) {
  if (interval_ns_ <= 0 || width_ns_ <= 0)
    throw std::invalid_argument("resample: intervals must be positive");
  // Row edges where the local clock reading is a multiple of the width (128 bits: ns since 1970 x width).
  const Wide local_ns = static_cast<Wide>(clock.local_start_s()) * 1'000'000'000;
  Wide phase = local_ns % width_ns_;
  if (phase < 0) phase += width_ns_;
  phase_ns_ = static_cast<std::int64_t>(phase);
  open_.values.assign(is_total_.size(), 0.0);
}

void Resampler::emit() {
  if (row_ < 0) return;
  for (std::size_t c = 0; c < is_total_.size(); ++c)
    if (!is_total_[c] && open_.length_ns > 0) open_.values[c] /= static_cast<double>(open_.length_ns);
  on_row_(open_);
  row_ = -1;
  open_.length_ns = 0;
  std::fill(open_.values.begin(), open_.values.end(), 0.0);
}

void Resampler::add(std::span<const double> values) {
  std::int64_t t0 = next_ns_;
  const std::int64_t t1 = std::min(horizon_ns_, next_ns_ + interval_ns_);
  const auto span = static_cast<double>(t1 - t0);
  next_ns_ += interval_ns_;
  while (t0 < t1) {
    const std::int64_t k = (t0 + phase_ns_) / width_ns_;
    const std::int64_t end = std::min(t1, (k + 1) * width_ns_ - phase_ns_);
    if (k != row_) {
      emit();
      row_ = k;
      open_.start_ns = std::max<std::int64_t>(0, k * width_ns_ - phase_ns_);
    }
    const auto piece = static_cast<double>(end - t0);
    for (std::size_t c = 0; c < is_total_.size(); ++c)
      open_.values[c] += is_total_[c] ? values[c] * (piece / span) : values[c] * piece;
    open_.length_ns += end - t0;
    t0 = end;
  }
}

void Resampler::finish() {
  emit();
}

std::optional<std::int64_t> parse_interval(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  if (digits == 0) return std::nullopt;
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc() || end != text.data() + digits) return std::nullopt;
  std::string_view unit = text.substr(digits);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  double scale = 0;
  if (unit == "ns")
    scale = 1;
  else if (unit == "us")
    scale = 1e3;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "s")
    scale = 1e9;
  else if (unit == "min")
    scale = 60e9;
  else if (unit == "h")
    scale = 3600e9;
  else if (unit == "d")
    scale = 86400e9;
  else
    return std::nullopt;
  const double ns = number * scale;
  if (!(ns >= 1) || ns > 9e18) return std::nullopt;
  // Simulated time is whole nanoseconds: "0.1s" (100000000.00000001 in binary) is 100000000 ns.
  return static_cast<std::int64_t>(std::llround(ns));
}

}  // namespace fleetwatt::results
