// Power-quality figures streamed from a facility series: ramps through the grid metrics' aligned windows,
// dynamic range per aligned window, and Welch's averaged periodogram over a ring of the last M samples.
#include "fleetwatt/results/metrics/power_quality.hpp"

#include <unsupported/Eigen/FFT>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <vector>

#include "aligned_windows.hpp"

namespace fleetwatt::results {

namespace {

using detail::AlignedWindows;
using detail::floor_mod;
using detail::kNsPerS;

constexpr double kSegmentMinS = 1000.0;  // 0.001 Hz bins: ten per decade's lowest band width
constexpr double kLowestHz = 0.01;       // the lowest band edge

/// M: the smallest power of two covering kSegmentMinS, at least 8 (an hourly series still overlaps by half).
std::size_t segment_length(std::int64_t interval_ns) {
  const double samples =
      std::ceil(kSegmentMinS * 1e9 / static_cast<double>(std::max<std::int64_t>(1, interval_ns)));
  return std::max<std::size_t>(8, std::bit_ceil(static_cast<std::size_t>(samples)));
}

/// max - min of the interval means starting in each clock-aligned window of `width_s`; the largest.
class WindowRange {
 public:
  WindowRange(std::int64_t width_s, const WallClock& clock)
      : width_ns_(width_s * kNsPerS), phase_ns_(floor_mod(clock.local_start_s(), width_s) * kNsPerS) {}
  void add(std::int64_t start_ns, double power_W) {
    const std::int64_t k = (start_ns + phase_ns_) / width_ns_;
    if (k != current_) {
      close();
      current_ = k;
      lo_ = hi_ = power_W;
    }
    lo_ = std::min(lo_, power_W);
    hi_ = std::max(hi_, power_W);
  }
  void close() {
    if (current_ >= 0 && !(hi_ - lo_ <= best_)) best_ = hi_ - lo_;
    current_ = -1;
  }
  [[nodiscard]] double best() const noexcept { return best_; }

 private:
  std::int64_t width_ns_, phase_ns_;
  std::int64_t current_ = -1;
  double lo_ = 0, hi_ = 0, best_ = kPqNaN;
};

/// Welch's averaged periodogram over segments of `m` samples (power of two) overlapping by half. The ring
/// grows with the samples until it holds m, and the periodogram is sized at the first segment: memory follows
/// what the run fills (a short horizon at a fine interval holds its few samples, not a 1000 s segment).
class Welch {
 public:
  explicit Welch(std::size_t m) : m_(m) {}
  void add(double x) {
    if (ring_.size() < m_)
      ring_.push_back(x);
    else
      ring_[head_] = x;
    head_ = (head_ + 1) % m_;
    ++seen_;
    if (seen_ >= m_ && (seen_ - m_) % (m_ / 2) == 0) {
      if (sum_.empty()) sum_.assign(m_ / 2 + 1, 0.0);
      std::vector<double> seg(m_);
      for (std::size_t i = 0; i < m_; ++i) seg[i] = ring_[(head_ + i) % m_];  // oldest first
      accumulate(seg, m_);
    }
  }
  /// With fewer than M samples: one segment of all of them, zero-padded to a power of two.
  void finish() {
    if (segments_ > 0 || seen_ < 4) return;
    const std::size_t n = seen_;
    std::vector<double> seg(ring_.begin(), ring_.begin() + static_cast<std::ptrdiff_t>(n));
    const std::size_t padded = std::bit_ceil(n);
    sum_.assign(padded / 2 + 1, 0.0);
    m_ = padded;
    accumulate(seg, padded);
  }
  [[nodiscard]] const std::vector<double>& periodogram() const noexcept { return sum_; }
  [[nodiscard]] std::size_t length() const noexcept { return m_; }
  [[nodiscard]] std::uint64_t segments() const noexcept { return segments_; }
  /// Sum of the window's squares over one segment's samples (Parseval's normalisation of a band's energy).
  [[nodiscard]] double window_power() const noexcept { return window_power_; }

 private:
  void accumulate(std::vector<double> seg, std::size_t fft_length) {
    const std::size_t n = seg.size();
    double mean = 0;
    for (double v : seg) mean += v;
    mean /= static_cast<double>(n);
    // Hann window over the data (not the padding): leakage falls off as 1/f^3, keeping a band's energy in it.
    double power = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double w =
          0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n));
      seg[i] = (seg[i] - mean) * w;
      power += w * w;
    }
    window_power_ = power;
    seg.resize(fft_length, 0.0);
    std::vector<std::complex<double>> spectrum;
    fft_.fwd(spectrum, seg);
    for (std::size_t k = 0; k < sum_.size(); ++k) sum_[k] += std::norm(spectrum[k]);
    ++segments_;
  }

  std::size_t m_;
  std::vector<double> ring_;
  std::vector<double> sum_;
  std::size_t head_ = 0;
  std::uint64_t seen_ = 0, segments_ = 0;
  double window_power_ = 0;
  Eigen::FFT<double> fft_;
};

}  // namespace

struct PowerQualityBuilder::Impl {
  Impl(std::int64_t interval, const WallClock& clock)
      : interval_ns(interval),
        ramps{AlignedWindows(1, clock), AlignedWindows(60, clock), AlignedWindows(900, clock)},
        ranges{WindowRange(1, clock), WindowRange(60, clock)},
        welch(segment_length(interval)) {
    if (interval <= 0) throw std::invalid_argument("power quality: the interval must be positive");
  }
  void commit(std::int64_t start_ns, std::int64_t end_ns, double power_W) {
    if (end_ns <= start_ns) return;
    for (auto& r : ramps) r.add(start_ns, end_ns, power_W);
  }
  std::int64_t interval_ns;
  std::array<AlignedWindows, 3> ramps;
  std::array<WindowRange, 2> ranges;
  Welch welch;
  bool pending = false;  // the latest sample waits: only the next one (or the horizon) ends it
  std::int64_t pending_start = 0;
  double pending_W = 0;
};

PowerQualityBuilder::PowerQualityBuilder(std::int64_t interval_ns, const WallClock& clock)
    : impl_(std::make_unique<Impl>(interval_ns, clock)) {}
PowerQualityBuilder::~PowerQualityBuilder() = default;
PowerQualityBuilder::PowerQualityBuilder(PowerQualityBuilder&&) noexcept = default;
PowerQualityBuilder& PowerQualityBuilder::operator=(PowerQualityBuilder&&) noexcept = default;

void PowerQualityBuilder::add(std::int64_t start_ns, double power_W) {
  auto& m = *impl_;
  if (m.pending) m.commit(m.pending_start, std::min(start_ns, m.pending_start + m.interval_ns), m.pending_W);
  for (auto& r : m.ranges) r.add(start_ns, power_W);
  m.welch.add(power_W);
  m.pending = true;
  m.pending_start = start_ns;
  m.pending_W = power_W;
}

PowerQuality PowerQualityBuilder::finish(std::int64_t horizon_ns) {
  auto& m = *impl_;
  if (m.pending)
    m.commit(m.pending_start, std::min(horizon_ns, m.pending_start + m.interval_ns), m.pending_W);
  m.pending = false;
  PowerQuality q;
  q.interval_s = static_cast<double>(m.interval_ns) / 1e9;
  for (std::size_t i = 0; i < m.ramps.size(); ++i) {
    m.ramps[i].close();
    const WindowStats st = m.ramps[i].resolved_stats(m.interval_ns);
    q.ramp_up_W[i] = st.ramp_up_W;
    q.ramp_down_W[i] = st.ramp_down_W;
  }
  for (std::size_t i = 0; i < m.ranges.size(); ++i) {
    m.ranges[i].close();
    if (2 * m.interval_ns <= static_cast<std::int64_t>(q.range_window_s[i] * 1e9))
      q.dynamic_range_W[i] = m.ranges[i].best();
  }
  m.welch.finish();
  q.segments = m.welch.segments();
  if (q.segments == 0) return q;
  q.segment_length = m.welch.length();
  const auto& p = m.welch.periodogram();
  const double df = 1.0 / (static_cast<double>(q.segment_length) * q.interval_s);
  const double nyquist = 0.5 / q.interval_s;
  double total = 0, peak = -1;
  std::array<double, 4> band{}, energy{};
  // Parseval: a one-sided bin stands for itself and its mirror (the Nyquist bin, k = M/2, for itself alone).
  const double to_variance = 1.0 / (static_cast<double>(q.segments) * static_cast<double>(q.segment_length) *
                                    m.welch.window_power());
  for (std::size_t k = 1; k < p.size(); ++k) {
    const double f = static_cast<double>(k) * df;
    if (f < kLowestHz) continue;
    total += p[k];
    const double variance = (2 * k == q.segment_length ? 1.0 : 2.0) * p[k] * to_variance;
    if (p[k] > peak) {
      peak = p[k];
      q.dominant_frequency_Hz = f;
    }
    for (std::size_t b = 0; b < band.size(); ++b)
      if (f >= kPowerQualityBands[b][0] && f < kPowerQualityBands[b][1]) {
        band[b] += p[k];
        energy[b] += variance;
      }
  }
  if (!(total > 0)) {
    q.dominant_frequency_Hz = kPqNaN;
    return q;
  }
  for (std::size_t b = 0; b < band.size(); ++b)
    if (kPowerQualityBands[b][0] < nyquist) {
      q.band_share[b] = band[b] / total;
      q.band_energy_W2[b] = energy[b];
    }
  return q;
}

PowerQuality power_quality(std::span<const double> power_W, std::int64_t interval_ns, const WallClock& clock,
                           std::int64_t horizon_ns) {
  PowerQualityBuilder b(interval_ns, clock);
  for (std::size_t i = 0; i < power_W.size(); ++i)
    b.add(static_cast<std::int64_t>(i) * interval_ns, power_W[i]);
  return b.finish(horizon_ns);
}

}  // namespace fleetwatt::results
