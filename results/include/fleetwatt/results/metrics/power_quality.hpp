// Power-quality figures of a facility power series (interval means): ramps over 1 s, 1 min and 15 min
// windows, dynamic range within 1 s and 1 min windows, and how the fluctuation energy spreads over frequency
// bands (Welch's averaged periodograms, Eigen's FFT). Streamed one interval at a time in bounded memory, so a
// run computes them while it writes its series.
//
// Definitions (docs/results.md, "Result file (HDF5)", /power_quality):
//  - Ramps: as the grid metrics (aligned_windows.hpp): the largest rise / fall between the means of two
//    consecutive complete clock-aligned windows, never negative. NaN where the window is shorter than the
//    interval.
//  - Dynamic range over W: for each clock-aligned window of width W, max - min of the interval means whose
//    interval starts in it; the largest such range over the run. NaN unless W holds at least two intervals.
//  - Spectrum (Welch 1967, IEEE Trans. Audio Electroacoust. 15(2):70-73): segments of M samples, M the
//    smallest power of two with M x interval >= 1000 s, overlapping by M/2; each segment less its own mean,
//    times a Hann window, FFT, |X_k|^2 averaged over segments. A series shorter than M is one segment of all
//    its samples, zero-padded to the next power of two. Samples after the last whole segment are left out.
//  - Band share [lo, hi): the sum of the averaged periodogram over bins with lo <= f < hi, divided by the sum
//    over bins with 0.01 Hz <= f <= Nyquist (1 / (2 x interval)): shares sum to at most 1. NaN for bands
//    whose lower edge is at or above Nyquist, and when there is no fluctuation.
//  - Band energy [lo, hi): the same bins as the share, as the series' variance in the band (W^2; written in
//    MW^2): by Parseval, 2 x sum of |X_k|^2 over the band / (segments x FFT length x sum of the Hann window's
//    squares over a segment's samples). A sinusoid of amplitude A in the band gives A^2 / 2; the bands' sum
//    is the variance of the series above 0.01 Hz. Absolute, so two runs' bands compare directly (the share
//    does not: smoothing shrinks the total too). NaN where the share is.
//  - Dominant frequency: the bin frequency of the largest periodogram value with 0.01 Hz <= f <= Nyquist.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>

#include "fleetwatt/results/metrics/wall_clock.hpp"

namespace fleetwatt::results {

constexpr double kPqNaN = std::numeric_limits<double>::quiet_NaN();

/// The frequency bands whose shares are reported, in Hz: [lo, hi).
constexpr std::array<std::array<double, 2>, 4> kPowerQualityBands{
    {{0.01, 0.1}, {0.1, 1.0}, {1.0, 5.0}, {5.0, 20.0}}};

struct PowerQuality {
  double interval_s = 0;
  std::array<double, 3> ramp_window_s{1, 60, 900};
  std::array<double, 3> ramp_up_W{kPqNaN, kPqNaN, kPqNaN};    ///< per ramp window
  std::array<double, 3> ramp_down_W{kPqNaN, kPqNaN, kPqNaN};  ///< positive: a fall
  std::array<double, 2> range_window_s{1, 60};
  std::array<double, 2> dynamic_range_W{kPqNaN, kPqNaN};  ///< per range window
  std::array<double, 4> band_share{kPqNaN, kPqNaN, kPqNaN, kPqNaN};
  std::array<double, 4> band_energy_W2{kPqNaN, kPqNaN, kPqNaN, kPqNaN};  ///< variance in the band, W^2
  double dominant_frequency_Hz = kPqNaN;
  std::uint64_t segments = 0;        ///< periodograms averaged
  std::uint64_t segment_length = 0;  ///< FFT length (samples, zero padding included)
};

/// Streams a facility series into its power-quality figures; memory is O(min(M, samples)): a ring of M
/// samples, the periodogram sum and the FFT buffers, about 6 MB at 0.01 s.
class PowerQualityBuilder {
 public:
  PowerQualityBuilder(std::int64_t interval_ns, const WallClock& clock);
  ~PowerQualityBuilder();
  PowerQualityBuilder(PowerQualityBuilder&&) noexcept;
  PowerQualityBuilder& operator=(PowerQualityBuilder&&) noexcept;

  /// The interval mean over [start_ns, start_ns + interval); one per interval, in time order.
  void add(std::int64_t start_ns, double power_W);
  /// The figures of everything added, the last interval ending at `horizon_ns`.
  [[nodiscard]] PowerQuality finish(std::int64_t horizon_ns);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The figures of a whole series: power_W[i] is the mean over [i x interval, (i + 1) x interval).
[[nodiscard]] PowerQuality power_quality(std::span<const double> power_W, std::int64_t interval_ns,
                                         const WallClock& clock, std::int64_t horizon_ns);

}  // namespace fleetwatt::results
