// The one clock model under a power cap: its closed forms, its fit, and its errors on the Zeus power-limit
// sweeps (../shared/data/zeus-nsdi23), fitted on all three GPUs and leaving each one out.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/models/fit/clock_model_fit.hpp"
#include "fleetwatt/models/fit/measurements.hpp"
#include "fleetwatt/models/fit/power_law_fit.hpp"
#include "fleetwatt/models/hardware/clock_model.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models;

TEST_CASE(
    "A cap moves the clock to where the draw above the floor fits, and stretches the clock-bound share") {
  const ClockModel m{0.2, 0.3};
  // TDP 300 W: floor 60 W. A phase at 260 W capped to 160 W: f = (160 - 60) / (260 - 60) = 0.5, so it
  // lasts 0.3 / 0.5 + 0.7 = 1.3 times as long and draws 160 W.
  CHECK(m.clock_fraction(260, 160, 300) == Approx(0.5));
  CHECK(m.stretch(260, 160, 300) == Approx(1.3));
  CHECK(ClockModel::capped_power(260, 160) == 160);
  // No cap, a cap above the draw, or a phase at or below the floor: nothing changes.
  CHECK(m.stretch(260, 0, 300) == 1.0);
  CHECK(m.stretch(260, 280, 300) == 1.0);
  CHECK(m.stretch(50, 40, 300) == 1.0);
  CHECK(ClockModel::capped_power(260, 0) == 260);
  // A cap at the floor bottoms out at the minimum clock: 0.3 / 0.05 + 0.7 = 6.7.
  CHECK(m.stretch(260, 60, 300) == Approx(0.3 / ClockModel::kMinClock + 0.7));
}

TEST_CASE("The clock-model fit recovers the constants that generated its samples") {
  const ClockModel truth{0.25, 0.4};
  std::vector<ClockSample> samples;
  for (double p : {180.0, 220.0, 260.0})
    for (double cap = 100; cap < p; cap += 20)
      samples.push_back({"g", "w", 300, cap, p, truth.stretch(p, cap, 300)});
  const ClockFit fit = fit_clock_model(samples);
  CHECK(fit.model.floor_fraction == Approx(0.25).margin(1e-6));
  CHECK(fit.model.clock_bound_share == Approx(0.4).margin(1e-6));
  CHECK(fit.mean_relative_error < 1e-6);
  CHECK_THROWS_AS(fit_clock_model({samples.begin(), samples.begin() + 3}), FitError);
}

namespace {
struct Sweep {
  const char* gpu;
  std::vector<ClockSample> samples;
  GpuHardware hw;
};

std::vector<Sweep> zeus_sweeps(const std::filesystem::path& data) {
  std::vector<Sweep> out;
  for (const char* g : {"a40", "rtx6000", "v100"}) {
    // The sweep's file names its GPU as Zeus does; its preset is the one the measurement reader maps that
    // name to (Zeus's V100 is the 250 W PCIe card, not the 300 W SXM2 that "v100" names in the presets).
    const GpuHardware hw = find_gpu(preset_for_gpu_name(g));
    out.push_back(
        {g, read_zeus_power_sweep(data / "zeus-nsdi23" / fmt::format("summary_power_{}.csv", g), g, hw.tdp_W),
         hw});
  }
  return out;
}

/// The law it replaces: dynamic power above idle ~ f^3 and all of the time follows the clock.
double cube_law_error(const Sweep& s) {
  double sum = 0.0;
  for (const auto& x : s.samples) {
    const double f = std::cbrt(std::max(x.cap_W - s.hw.idle_W, 1e-3) / (x.uncapped_W - s.hw.idle_W));
    sum += std::abs(1.0 / f - x.time_ratio) / x.time_ratio;
  }
  return sum / static_cast<double>(s.samples.size());
}
}  // namespace

TEST_CASE("The shipped clock model is the fit on the Zeus sweeps, and holds on a GPU left out", "[data]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto sweeps = zeus_sweeps(data);
  std::vector<ClockSample> all;
  for (const auto& s : sweeps) {
    REQUIRE(s.samples.size() > 150);  // rows whose limit is below the workload's uncapped draw
    all.insert(all.end(), s.samples.begin(), s.samples.end());
  }
  const ClockFit fit = fit_clock_model(all);
  CHECK(clock_model().floor_fraction == Approx(fit.model.floor_fraction).margin(0.005));
  CHECK(clock_model().clock_bound_share == Approx(fit.model.clock_bound_share).margin(0.005));

  // Errors in docs/predictors.md (mean relative error of time per epoch under a cap).
  const double all_err = clock_model_error(clock_model(), all);
  WARN(fmt::format("clock model, fitted on all: {:.1f} % mean relative error of time under a cap",
                   100 * all_err));
  CHECK(all_err < 0.085);
  double cube_sum = 0.0;
  for (const auto& s : sweeps) {
    std::vector<ClockSample> rest;
    for (const auto& o : sweeps)
      if (o.gpu != s.gpu) rest.insert(rest.end(), o.samples.begin(), o.samples.end());
    const ClockFit out = fit_clock_model(rest);
    const double held = clock_model_error(out.model, s.samples);
    const double cube = cube_law_error(s);
    cube_sum += cube * static_cast<double>(s.samples.size());
    WARN(fmt::format("{}: left out {:.1f} %, fitted on all {:.1f} %, cube law {:.1f} %", s.gpu, 100 * held,
                     100 * clock_model_error(clock_model(), s.samples), 100 * cube));
    // Guards just above the errors docs/predictors.md reports (13.8 %, 7.4 %, 6.7 %).
    const double bound = s.gpu == std::string("a40") ? 0.145 : s.gpu == std::string("rtx6000") ? 0.08 : 0.072;
    CHECK(held < bound);
  }
  // The fitted model beats the cube law it replaced, over all rows.
  CHECK(all_err < cube_sum / static_cast<double>(all.size()));
}
