// The power-quality figures as HDF5 datasets in /power_quality: scalars named by window and band, so a
// reader needs no table to find one. MW per window as the issue asks for ramps; W stays the unit inside.
#include <fmt/format.h>

#include "hdf5_datasets.hpp"

namespace fleetwatt::results {

namespace {
std::string window_name(double s) {
  return s >= 60 ? fmt::format("{:g}min", s / 60) : fmt::format("{:g}s", s);
}
std::string band_name(const std::array<double, 2>& b) {
  // "0p01_0p1Hz": HDF5 names may hold dots, but tools that map names to variables do not like them.
  std::string n = fmt::format("{:g}_{:g}Hz", b[0], b[1]);
  for (auto& c : n)
    if (c == '.') c = 'p';
  return n;
}
}  // namespace

void write_power_quality(H5::Group& g, const PowerQuality& q, std::string_view meter) {
  write_scalar(g, "interval_s", q.interval_s, "s: the facility interval the figures are computed from");
  for (std::size_t i = 0; i < q.ramp_window_s.size(); ++i) {
    const std::string w = window_name(q.ramp_window_s[i]);
    write_scalar(g, "ramp_up_" + w + "_MW", q.ramp_up_W[i] / 1e6,
                 "MW per " + w + ": largest rise between the means of consecutive clock-aligned " + w +
                     " windows (NaN: window shorter than the interval, or fewer than two windows)");
    write_scalar(g, "ramp_down_" + w + "_MW", q.ramp_down_W[i] / 1e6,
                 "MW per " + w + ": largest fall between the means of consecutive " + w +
                     " windows, positive (NaN: as ramp up)");
  }
  for (std::size_t i = 0; i < q.range_window_s.size(); ++i) {
    const std::string w = window_name(q.range_window_s[i]);
    write_scalar(g, "dynamic_range_" + w + "_MW", q.dynamic_range_W[i] / 1e6,
                 "MW: largest max - min of the interval means within one clock-aligned " + w +
                     " window (NaN: the window holds fewer than two intervals)");
  }
  for (std::size_t b = 0; b < kPowerQualityBands.size(); ++b)
    write_scalar(g, "band_share_" + band_name(kPowerQualityBands[b]), q.band_share[b],
                 fmt::format("1: share of the fluctuation energy between 0.01 Hz and Nyquist in "
                             "[{:g}, {:g}) Hz (Welch periodogram; NaN: band at or above Nyquist, or no "
                             "fluctuation)",
                             kPowerQualityBands[b][0], kPowerQualityBands[b][1]));
  for (std::size_t b = 0; b < kPowerQualityBands.size(); ++b)
    write_scalar(
        g, "band_energy_" + band_name(kPowerQualityBands[b]) + "_MW2", q.band_energy_W2[b] / 1e12,
        fmt::format("MW^2: the facility power's variance in [{:g}, {:g}) Hz, from the same periodogram "
                    "(a sinusoid of amplitude A gives A^2 / 2; NaN: as the share)",
                    kPowerQualityBands[b][0], kPowerQualityBands[b][1]));
  write_scalar(g, "dominant_frequency_Hz", q.dominant_frequency_Hz,
               "Hz: frequency of the largest periodogram value between 0.01 Hz and Nyquist (NaN: none)");
  write_scalar(g, "welch_segments", static_cast<std::int64_t>(q.segments), "1: periodograms averaged");
  write_scalar(g, "welch_segment_length", static_cast<std::int64_t>(q.segment_length),
               "1: samples per FFT (a power of two; zero padding included)");
  write_string_attribute(g, "meter", fmt::format("/facility/{}", meter));
  write_string_attribute(
      g, "description",
      fmt::format("power-quality figures of /facility/{}: ramps and dynamic range over "
                  "clock-aligned windows, fluctuation energy by frequency band (docs/results.md)",
                  meter));
}

}  // namespace fleetwatt::results
