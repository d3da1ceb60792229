// Tests of the square-wave segmentation: synthetic traces with known levels, change points and noise, and
// the public RTX 3070 training logs, whose phases must integrate back to the measured energy.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/models/fit/segmentation.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models::fit;

namespace {

/// Gaussian noise by Box-Muller over the portable uniform generator.
double gauss(fleetwatt::jobs::Random& rng) {
  const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

struct Square {
  GpuPowerSeries series;
  std::vector<std::size_t> edges;  // first sample of each new level
};

/// idle, then `cycles` x (peak, valley) with the last valley replaced by idle, sampled at 1 Hz.
Square square_wave(double idle_W, double peak_W, double valley_W, std::size_t idle_n, std::size_t peak_n,
                   std::size_t valley_n, int cycles, double noise_frac, std::uint64_t seed) {
  fleetwatt::jobs::Random rng(seed);
  Square sq;
  auto add = [&](double level, std::size_t count) {
    if (!sq.series.power_W.empty()) sq.edges.push_back(sq.series.power_W.size());
    for (std::size_t i = 0; i < count; ++i) {
      sq.series.time_s.push_back(double(sq.series.time_s.size()));
      sq.series.power_W.push_back(level * (1.0 + noise_frac * gauss(rng)));
    }
  };
  add(idle_W, idle_n);
  for (int c = 0; c < cycles; ++c) {
    add(peak_W, peak_n);
    if (c + 1 < cycles) add(valley_W, valley_n);
  }
  add(idle_W, idle_n);
  return sq;
}

}  // namespace

TEST_CASE("a noisy multi-GPU-style square wave is recovered: levels within 2 %, edges within two samples",
          "[segmentation]") {
  // Known truth: idle 60 W, peak 300 W for 120 s, valley 110 W for 25 s, five cycles, 3 % Gaussian noise.
  const Square sq = square_wave(60.0, 300.0, 110.0, 30, 120, 25, 5, 0.03, 42);
  const Segmentation seg = segment_series(sq.series);
  REQUIRE(seg.phases.size() == sq.edges.size() + 1);
  CHECK(seg.n_peaks == 5);
  CHECK(seg.n_valleys == 4);
  for (std::size_t i = 0; i < sq.edges.size(); ++i)
    CHECK(std::abs(double(seg.phases[i + 1].first) - double(sq.edges[i])) <= 2.0);
  CHECK(seg.peak_W == Approx(300.0).epsilon(0.02));
  CHECK(seg.valley_W == Approx(110.0).epsilon(0.02));
  CHECK(seg.idle_W == Approx(60.0).epsilon(0.02));
  // Durations: a phase of n samples at 1 Hz spans n seconds between the half-sample boundaries.
  CHECK(seg.peak_s == Approx(120.0).margin(2.0));
  CHECK(seg.valley_s == Approx(25.0).margin(2.0));
  REQUIRE(seg.cycles.size() == 5);
  CHECK(seg.cycles[0].valley_W == Approx(110.0).epsilon(0.02));
  CHECK(seg.cycles[4].valley_s == 0.0);
}

TEST_CASE("short valleys of four samples survive the smoothing", "[segmentation]") {
  const Square sq = square_wave(50.0, 250.0, 150.0, 20, 40, 4, 6, 0.01, 7);
  const Segmentation seg = segment_series(sq.series);
  CHECK(seg.n_valleys == 5);
  for (std::size_t i = 0; i < sq.edges.size() && i + 1 < seg.phases.size(); ++i)
    CHECK(std::abs(double(seg.phases[i + 1].first) - double(sq.edges[i])) <= 2.0);
  CHECK(seg.valley_W == Approx(150.0).epsilon(0.02));
  CHECK(seg.valley_s == Approx(4.0).margin(2.0));
}

TEST_CASE("a single-GPU run without valleys is idle, one peak, idle", "[segmentation]") {
  const Square sq = square_wave(22.0, 180.0, 0.0, 15, 600, 0, 1, 0.02, 3);
  const Segmentation seg = segment_series(sq.series);
  CHECK(seg.n_peaks == 1);
  CHECK(seg.n_valleys == 0);
  CHECK(seg.valley_W == 0.0);
  CHECK(seg.peak_W == Approx(180.0).epsilon(0.02));
  CHECK(seg.peak_s == Approx(600.0).margin(2.0));
}

TEST_CASE("a flat trace is one phase", "[segmentation]") {
  GpuPowerSeries s;
  for (int i = 0; i < 50; ++i) {
    s.time_s.push_back(i);
    s.power_W.push_back(100.0 + (i % 2));
  }
  const Segmentation seg = segment_series(s);
  CHECK(seg.phases.size() == 1);
  CHECK(seg.peak_W == Approx(100.5).epsilon(0.01));
}

TEST_CASE("segmentation options and too-short series are rejected", "[segmentation]") {
  GpuPowerSeries s{0, {0.0}, {1.0}, {}, {}};
  CHECK_THROWS_WITH(segment_series(s, {}, "x.csv"), Catch::Contains("at least two"));
  s = GpuPowerSeries{0, {0.0, 1.0}, {1.0, 2.0}, {}, {}};
  SegmentOptions bad;
  bad.smoothing_window = 4;
  CHECK_THROWS_WITH(segment_series(s, bad, "x.csv"), Catch::Contains("smoothing_window"));
}

TEST_CASE("the public RTX 3070 runs' phases integrate back to the measured energy within 2 %",
          "[segmentation][shared]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  int files = 0;
  for (const auto& dir : std::filesystem::directory_iterator(data / "gaissa-seaa2023" / "rtx3070"))
    for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
      const auto tr = read_power_trace(f.path());
      const auto seg = segment_series(tr.gpu(0), {}, f.path().string());
      ++files;
      INFO(f.path().string());
      // Segmented phases must integrate back to the trace's measured energy within 2 %.
      CHECK(seg.phase_energy_J == Approx(seg.measured_energy_J).epsilon(0.02));
      // Whole training runs: most of the time is spent computing, at well above the 240 W board's idle.
      CHECK(seg.n_peaks >= 1);
      CHECK(seg.peak_W > 100.0);
      CHECK(seg.peak_W < 240.0);
    }
  CHECK(files == 25);
}
