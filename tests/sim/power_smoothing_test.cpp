// GPU power smoothing and burn ([smoothing], sim/fleet/power_smoothing.hpp) against hand calculations: the
// periodic smoothed step of a one-stage job, its ramps cut into pieces whose energies are the trapezoid's
// exactly, and whole engine runs whose extra energy is worked out by hand and whose timing is unchanged.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/fleet/power_smoothing.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"
#include "sim_test_support.hpp"

using namespace fleetwatt;
using sim::Duration;

namespace {

Duration s(double seconds) {
  return Duration::from_seconds(seconds);
}

/// One step of one stage as the engine draws it (step_waveform.hpp): compute 3 s at 400 W, bubble 1.5 s at
/// 100 W, communication 1 s at 200 W, loading 0.5 s at 80 W: 1,590 J per GPU over a 6 s step.
const std::vector<sim::PowerLevel> kStep{{s(3.0), 400.0}, {s(4.5), 100.0}, {s(5.5), 200.0}, {s(6.0), 80.0}};

sim::PowerSmoothing smoothing(jobs::SmoothingMode mode, double up_W_per_s = 1000.0) {
  sim::PowerSmoothing p;
  p.mode = mode;
  p.floor_W = 250.0;  // 0.5 x a 500 W TDP
  p.ramp_up_W_per_s = up_W_per_s;
  p.ramp_down_W_per_s = 100.0;
  p.hysteresis = s(0.5);
  return p;
}

double energy_of(const std::vector<sim::PowerRamp>& ramps) {
  double e = 0.0;
  for (const auto& r : ramps) e += r.energy_J();
  return e;
}

/// 10 steps of 6 s on `n` GPUs in `pp` stages, a 4 s checkpoint at 90 W after every 5 steps, a 2 s start-up
/// at 90 W: it ends at 2 + 2 x (5 x 6 + 4) = 70 s. GPUs idle 50 W, TDP 500 W; 0.5 s facility samples.
std::unique_ptr<sim::Engine> step_engine(std::uint32_t n, std::uint32_t pp, sim::SmoothingSetup smooth,
                                         const models::PowerPredictor& predictor) {
  sim::EngineSetup setup;
  setup.nodes = (n + 7) / 8;
  setup.gpus_per_node = 8;
  setup.gpu.id = "g";
  setup.gpu.idle_W = 50.0;
  setup.gpu.tdp_W = 500.0;
  setup.horizon = sim::Time::from_seconds(100.0);
  setup.facility_interval = s(0.5);
  setup.smoothing = smooth;
  jobs::JobSpec j;
  j.id = 1;
  j.n_gpus = n;
  j.epochs = 1;
  j.meta.parallel.pp = pp;
  j.schedule.waveform = jobs::Waveform::steps;
  j.schedule.checkpoint_every_steps = 5;
  j.schedule.startup_s = 2.0;
  sim::SchedulerConfig c;
  return std::make_unique<sim::Engine>(std::move(setup), std::vector<jobs::JobSpec>{j}, predictor,
                                       sim::make_scheduler(c), sim::make_placement(c));
}

sim::SmoothingSetup setup_of(jobs::SmoothingMode mode) {
  return {mode, 0.5, 1000.0, 100.0, s(0.5)};  // floor 250 W on a 500 W TDP
}

const test::StepPredictor kSteps;

}  // namespace

TEST_CASE("burn raises every level below the floor to it, nothing else", "[smoothing]") {
  const auto r = sim::smooth_periodic(kStep, smoothing(jobs::SmoothingMode::burn), 0.0);
  REQUIRE(r.size() == 4);
  CHECK(r[0].W0 == 400.0);
  for (std::size_t i = 1; i < 4; ++i) CHECK((r[i].W0 == 250.0 && r[i].W1 == 250.0));
  // 400 x 3 + 250 x 3 = 1,950 J per GPU and step, against the work's 1,590.
  CHECK(energy_of(r) == Approx(1950.0).epsilon(1e-12));
  // Under a 200 W cap the floor is the cap: everything at 200 W.
  const auto capped_kstep =
      std::vector<sim::PowerLevel>{{s(3.0), 200.0}, {s(4.5), 100.0}, {s(5.5), 200.0}, {s(6.0), 80.0}};
  CHECK(energy_of(sim::smooth_periodic(capped_kstep, smoothing(jobs::SmoothingMode::burn), 200.0)) ==
        Approx(1200.0).epsilon(1e-12));
}

TEST_CASE("smooth: hold, then ramp down to the floor, periodic from the first step", "[smoothing]") {
  // The held level reaches 400 W within the compute (250 -> 400 at 1,000 W/s takes 0.15 s), holds it for the
  // 0.5 s hysteresis after the drop at 3 s, falls at 100 W/s to the 250 W floor (1.5 s: 3.5 -> 5.0 s, cut at
  // the 4.5 s level boundary where it is at 300 W), then the floor. Per GPU and step:
  // 400 x 3 + 400 x 0.5 + (400 + 250) / 2 x 1.5 + 250 x 1 = 2,137.5 J.
  const auto r = sim::smooth_periodic(kStep, smoothing(jobs::SmoothingMode::smooth), 0.0);
  REQUIRE(r.size() == 6);
  CHECK((r[0].begin == s(0.0) && r[0].end == s(3.0) && r[0].W0 == 400.0 && r[0].W1 == 400.0));
  CHECK((r[1].begin == s(3.0) && r[1].end == s(3.5) && r[1].W0 == 400.0 && r[1].W1 == 400.0));
  CHECK((r[2].begin == s(3.5) && r[2].end == s(4.5) && r[2].W0 == 400.0));
  CHECK(r[2].W1 == Approx(300.0).epsilon(1e-12));
  CHECK((r[3].begin == s(4.5) && r[3].end == s(5.0)));
  CHECK(r[3].W0 == Approx(300.0).epsilon(1e-12));
  CHECK(r[3].W1 == 250.0);
  CHECK((r[4].W0 == 250.0 && r[4].end == s(5.5) && r[5].W0 == 250.0 && r[5].end == s(6.0)));
  CHECK(energy_of(r) == Approx(2137.5).epsilon(1e-12));
}

TEST_CASE("smooth: a slow ramp up remembers only part of the peak", "[smoothing]") {
  // At 20 W/s the held level climbs 60 W in the 3 s of compute: from the floor (where the previous step's 3 s
  // low part left it: 0.5 s held, then 2.5 s at 100 W/s, more than enough) to 310 W. The GPU draws the
  // compute's 400 W meanwhile (the work is never held back); then 310 W for 0.5 s, 310 -> 250 W over 0.6 s,
  // and the floor: 1,200 + 155 + 168 + 250 x 1.9 = 1,998 J.
  const auto r = sim::smooth_periodic(kStep, smoothing(jobs::SmoothingMode::smooth, 20.0), 0.0);
  CHECK(r[1].W0 == Approx(310.0).epsilon(1e-12));
  CHECK(r[2].end == s(4.1));
  CHECK(energy_of(r) == Approx(1998.0).epsilon(1e-12));
}

TEST_CASE("ramps cut into midpoint pieces keep each piece's energy the trapezoid's", "[smoothing]") {
  const auto r = sim::smooth_periodic(kStep, smoothing(jobs::SmoothingMode::smooth), 0.0);
  const auto pieces = sim::discretise(r, s(0.1));
  // The ramp over [3.5, 4.5) in 10 pieces of 0.1 s: the first at its midpoint 3.55 s, 400 - 100 x 0.05 =
  // 395 W, whose 39.5 J are the trapezoid (400 + 390) / 2 x 0.1 exactly.
  Duration begin = Duration::zero();
  double total = 0.0;
  std::size_t ramp_pieces = 0;
  for (const auto& p : pieces) {
    if (begin >= s(3.5) && p.end <= s(5.0)) {
      ++ramp_pieces;
      CHECK(p.end - begin <= s(0.1));  // only ramps are cut; constant pieces stay whole
      // The trapezoid over this piece, from the ramp's closed form W(t) = 400 - 100 (t - 3.5).
      const double a = begin.seconds(), b = p.end.seconds();
      const double trapezoid = 0.5 * ((400.0 - 100.0 * (a - 3.5)) + (400.0 - 100.0 * (b - 3.5))) * (b - a);
      CHECK(p.W * (b - a) == Approx(trapezoid).epsilon(1e-12));
    }
    total += p.W * (p.end - begin).seconds();
    begin = p.end;
  }
  CHECK(ramp_pieces == 15);  // 1.5 s of ramp in 0.1 s pieces
  CHECK(pieces.size() == 4 + 15);
  CHECK(pieces[2].W == Approx(395.0).epsilon(1e-12));
  CHECK(total == Approx(2137.5).epsilon(1e-12));
}

TEST_CASE("a smoothed job runs the same timeline, and its extra energy is smoothed minus unsmoothed",
          "[smoothing][engine]") {
  auto plain = step_engine(8, 1, setup_of(jobs::SmoothingMode::off), kSteps);
  plain->run();
  const auto& p = plain->jobs().front();
  REQUIRE(p.end.seconds() == 70.0);
  CHECK(p.smoothing_J == 0.0);
  CHECK_FALSE(plain->summary().smoothing);

  SECTION("burn, 4 stages out of phase") {
    // Per GPU: each step's 3 s below the floor raised to 250 W: bubble 1.5 x 150 + comm 1 x 50 + loading
    // 0.5 x 170 = 360 J, x 10 steps; both checkpoints and the start-up at 90 W raised to 250 W: 2 x 4 x 160 +
    // 2 x 160 = 1,600 J. 3,600 + 1,600 = 5,200 J per GPU, x 16 GPUs = 83,200 J. Every stage draws the same
    // levels, shifted: the sum is the same as one stage's.
    auto plain16 = step_engine(16, 4, setup_of(jobs::SmoothingMode::off), kSteps);
    plain16->run();
    auto burn = step_engine(16, 4, setup_of(jobs::SmoothingMode::burn), kSteps);
    burn->run();
    const auto& b = burn->jobs().front();
    CHECK(b.end == plain16->jobs().front().end);
    CHECK(b.smoothing_J == Approx(83200.0).epsilon(1e-9));
    CHECK(b.energy_J - plain16->jobs().front().energy_J == Approx(83200.0).epsilon(1e-9));
    CHECK(burn->summary().smoothing_energy_J == Approx(83200.0).epsilon(1e-9));
    CHECK(burn->ledger().gpu_energy_J() - plain16->ledger().gpu_energy_J() == Approx(83200.0).epsilon(1e-9));
  }
  SECTION("smooth, one stage") {
    // Per GPU and step 2,137.5 - 1,590 = 547.5 J (above), x 10; checkpoints and start-up as for burn, 1,600
    // J: 7,075 J per GPU, x 8 = 56,600 J.
    auto smooth = step_engine(8, 1, setup_of(jobs::SmoothingMode::smooth), kSteps);
    smooth->run();
    const auto& m = smooth->jobs().front();
    CHECK(m.end == p.end);
    CHECK(m.smoothing_J == Approx(56600.0).epsilon(1e-9));
    CHECK(m.energy_J - p.energy_J == Approx(56600.0).epsilon(1e-9));
    CHECK(smooth->ledger().gpu_energy_J() - plain->ledger().gpu_energy_J() == Approx(56600.0).epsilon(1e-9));
    CHECK(smooth->summary().smoothing);
  }
}

TEST_CASE("epoch-level jobs: the floor under their valleys, and a job's own mode overrides the table",
          "[smoothing][engine]") {
  // 8 GPUs (a800: TDP 400 W), 3 epochs of 100 s at 300 W then a 10 s checkpoint at 100 W. Floor 0.5 x 400 =
  // 200 W: each checkpoint costs 8 x 10 x 100 = 8,000 J more, 24,000 J for three; the peaks are above it.
  const std::string& base = test::kOneJobScenario;
  auto run = test::make_run(base + "[smoothing]\nmode = \"burn\"\nfloor_fraction = 0.5\n");
  run.engine->run();
  const auto& job = run.engine->jobs().front();
  CHECK(job.end.seconds() == 330.0);
  CHECK(job.smoothing_J == Approx(24000.0).epsilon(1e-12));
  CHECK(job.energy_J == Approx(744000.0 + 24000.0).epsilon(1e-12));
  // The job turns it off for itself: the run is the one without smoothing (the table is still reported).
  auto off =
      test::make_run(base + "smoothing = \"off\"\n[smoothing]\nmode = \"burn\"\nfloor_fraction = 0.5\n");
  off.engine->run();
  CHECK(off.engine->jobs().front().smoothing_J == 0.0);
  CHECK(off.engine->jobs().front().energy_J == Approx(744000.0).epsilon(1e-12));
}
