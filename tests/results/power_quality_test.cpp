// Power-quality figures against closed forms: sinusoids and a square wave through the Welch spectrum, and
// ramps and dynamic range of hand-made series.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <vector>

#include "fleetwatt/results/metrics/power_quality.hpp"

using namespace fleetwatt::results;

namespace {
constexpr std::int64_t kS = 1'000'000'000;

PowerQuality of(const std::vector<double>& p, std::int64_t interval_ns) {
  return power_quality(p, interval_ns, WallClock{}, static_cast<std::int64_t>(p.size()) * interval_ns);
}

std::vector<double> sine(double f_Hz, double dt_s, std::size_t n) {
  std::vector<double> p(n);
  for (std::size_t i = 0; i < n; ++i)
    p[i] = 10e6 + 1e6 * std::sin(2 * std::numbers::pi * f_Hz * static_cast<double>(i) * dt_s);
  return p;
}
}  // namespace

TEST_CASE("a sinusoid's energy lies in its band and its frequency is the dominant one", "[power_quality]") {
  SECTION("0.05 Hz at 1 s: M = 1024 (the first power of two >= 1000 s), bins 1/1024 Hz") {
    const auto q = of(sine(0.05, 1.0, 20000), kS);
    CHECK(q.segment_length == 1024);
    // Segments start every 512 samples while a whole one fits: 1 + (20000 - 1024) / 512 = 38.
    CHECK(q.segments == 38);
    CHECK(std::abs(q.dominant_frequency_Hz - 0.05) <= 1.0 / 1024);
    CHECK(q.band_share[0] > 0.99);
    CHECK(q.band_share[1] < 0.01);
    // Nyquist is 0.5 Hz: the 1-5 and 5-20 Hz bands are above it.
    CHECK(std::isnan(q.band_share[2]));
    CHECK(std::isnan(q.band_share[3]));
  }
  SECTION("2 Hz at 0.01 s: M = 131072 (1310.72 s)") {
    const auto q = of(sine(2.0, 0.01, 300000), kS / 100);
    CHECK(q.segment_length == 131072);
    CHECK(q.segments == 3);  // 1 + (300000 - 131072) / 65536
    CHECK(std::abs(q.dominant_frequency_Hz - 2.0) <= 1.0 / 1310.72);
    CHECK(q.band_share[2] > 0.99);
    CHECK(q.band_share[0] + q.band_share[1] + q.band_share[3] < 0.01);
  }
}

TEST_CASE("a square wave of period T: 1/T dominant, odd harmonics in their bands", "[power_quality]") {
  // T = 20 s sampled at 0.1 s: P = 200 samples, 100 high then 100 low. One period's DFT is
  // X_n = sum_{m<100} e^{-2 pi i n m / P} = (1 - e^{-i pi n}) / (1 - e^{-2 pi i n / P}): zero for even n,
  // |X_n| = 1 / sin(pi n / P) for odd n, at f_n = n / T = 0.05 n Hz. Between 0.01 Hz and Nyquist (5 Hz) that
  // is odd n = 1..99; band 0.01-0.1 holds n = 1, band 0.1-1 n = 3..19, band 1-5 n = 21..99.
  const double T = 20.0, dt = 0.1;
  const int P = 200;
  std::vector<double> p(200000);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = (i % P) < P / 2 ? 12e6 : 8e6;
  auto energy = [&](int from, int to) {
    double e = 0;
    for (int n = from; n <= to; n += 2) e += 1.0 / std::pow(std::sin(std::numbers::pi * n / P), 2);
    return e;
  };
  const double total = energy(1, 99);
  const auto q = of(p, kS / 10);
  CHECK(std::abs(q.dominant_frequency_Hz - 1.0 / T) <= 1.0 / (16384 * dt));
  CHECK(q.band_share[0] == Approx(energy(1, 1) / total).margin(0.005));  // ~0.81 (8 / pi^2 continuous)
  CHECK(q.band_share[1] == Approx(energy(3, 19) / total).margin(0.005));
  CHECK(q.band_share[2] == Approx(energy(21, 99) / total).margin(0.005));
  CHECK(std::isnan(q.band_share[3]));  // 5 Hz is the Nyquist frequency itself
}

TEST_CASE("band energy: a band's variance, absolute", "[power_quality]") {
  SECTION("a 1 MW sinusoid has variance A^2 / 2 = 0.5 MW^2, all in its band") {
    const auto q = of(sine(0.05, 1.0, 20000), kS);
    CHECK(q.band_energy_W2[0] == Approx(0.5e12).epsilon(0.02));
    CHECK(q.band_energy_W2[1] < 0.01 * 0.5e12);
    CHECK(std::isnan(q.band_energy_W2[2]));  // above Nyquist, as the share
  }
  SECTION("twice the amplitude, four times the energy; the share stays") {
    auto p = sine(2.0, 0.01, 300000);
    for (auto& v : p) v = 10e6 + 2.0 * (v - 10e6);
    const auto q = of(p, kS / 100);
    CHECK(q.band_energy_W2[2] == Approx(2e12).epsilon(0.02));
    CHECK(q.band_share[2] > 0.99);
  }
  SECTION("a square wave of +-2 MW: the bands' sum is its variance, 4 MW^2, split as the shares") {
    std::vector<double> p(200000);
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = (i % 200) < 100 ? 12e6 : 8e6;
    const auto q = of(p, kS / 10);
    const double sum = q.band_energy_W2[0] + q.band_energy_W2[1] + q.band_energy_W2[2];
    CHECK(sum == Approx(4e12).epsilon(0.02));
    for (std::size_t b = 0; b < 3; ++b)
      CHECK(q.band_energy_W2[b] / sum == Approx(q.band_share[b]).margin(1e-4));
  }
}

TEST_CASE("ramps and dynamic range of a hand-made series", "[power_quality]") {
  // 0.5 s intervals (MW): 0 2 | 5 5 | 1 3 | 3 3. The 1-s windows' means are 1, 5, 2, 3: ramp up 4 MW (1 ->
  // 5), down 3 MW (5 -> 2); ranges within them 2, 0, 2, 0 -> 2 MW. The single 1-min window is partial (4 s):
  // no ramp, range 5 - 0 = 5 MW.
  const std::vector<double> p{0, 2e6, 5e6, 5e6, 1e6, 3e6, 3e6, 3e6};
  const auto q = of(p, kS / 2);
  CHECK(q.ramp_up_W[0] == Approx(4e6));
  CHECK(q.ramp_down_W[0] == Approx(3e6));
  CHECK(std::isnan(q.ramp_up_W[1]));
  CHECK(std::isnan(q.ramp_down_W[2]));
  CHECK(q.dynamic_range_W[0] == Approx(2e6));
  CHECK(q.dynamic_range_W[1] == Approx(5e6));

  SECTION("windows shorter than the interval are not available") {
    // 2-s intervals: 1-s ramps and 1-s ranges have nothing to compare; 1-min ranges do (30 per window).
    const auto c = of({1e6, 4e6, 2e6}, 2 * kS);
    CHECK(std::isnan(c.ramp_up_W[0]));
    CHECK(std::isnan(c.dynamic_range_W[0]));
    CHECK(c.dynamic_range_W[1] == Approx(3e6));
  }
  SECTION("1-min ramps over a 3-min series at 1 s: minute means 1, 4, 2 MW") {
    std::vector<double> s;
    for (double mw : {1.0, 4.0, 2.0}) s.insert(s.end(), 60, mw * 1e6);
    const auto c = of(s, kS);
    CHECK(c.ramp_up_W[1] == Approx(3e6));
    CHECK(c.ramp_down_W[1] == Approx(2e6));
    CHECK(c.ramp_up_W[0] == Approx(3e6));     // the 1-s step at 60 s
    CHECK(std::isnan(c.dynamic_range_W[0]));  // 1 s holds one 1-s interval: nothing to range over
  }
}

TEST_CASE("empty, short and constant series", "[power_quality]") {
  SECTION(
      "hourly intervals: segments of at least 8 samples, no bin at or above 0.01 Hz (Nyquist 1/7200 Hz)") {
    std::vector<double> h(100);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = (i % 3) * 1e6;
    const auto q = of(h, 3600 * kS);
    CHECK(q.segment_length == 8);
    CHECK(q.segments == 24);  // 1 + (100 - 8) / 4
    CHECK(std::isnan(q.dominant_frequency_Hz));
    CHECK(std::isnan(q.band_share[0]));
    CHECK(std::isnan(q.ramp_up_W[2]));  // 15-min windows are shorter than the hour
  }
  const auto e = of({}, kS);
  CHECK(e.segments == 0);
  CHECK(std::isnan(e.dominant_frequency_Hz));
  CHECK(std::isnan(e.band_share[0]));
  CHECK(std::isnan(e.ramp_up_W[0]));
  CHECK(std::isnan(e.dynamic_range_W[1]));

  const auto s = of({1e6, 2e6, 3e6}, kS);  // fewer than four samples: no spectrum
  CHECK(s.segments == 0);
  CHECK(std::isnan(s.band_share[0]));
  CHECK(s.ramp_up_W[0] == Approx(1e6));

  const auto c = of(std::vector<double>(5000, 7e6), kS);  // no fluctuation: no shares, no dominant frequency
  CHECK(c.segments > 0);
  CHECK(std::isnan(c.band_share[0]));
  CHECK(std::isnan(c.dominant_frequency_Hz));
  CHECK(c.ramp_up_W[1] == 0.0);
}
