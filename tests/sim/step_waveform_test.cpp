// Step-level power waveforms: a job whose plan has steps runs each step as segments,
// pipeline stages out of phase, a checkpoint every N steps and a start-up; one event per segment of the
// job, never per GPU. Every expected number is worked out by hand from the plan below.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"
#include "sim_test_support.hpp"

using namespace fleetwatt;

namespace {

/// `nodes` x 8 GPUs (idle 50 W, TDP 500 W), no node base power, PUE 1, 0.5 s facility samples.
sim::EngineSetup fleet(std::uint32_t nodes, double horizon_s = 100.0) {
  sim::EngineSetup s;
  s.nodes = nodes;
  s.gpus_per_node = 8;
  // Moved from a string, not assigned from "g": gcc 12's -Wrestrict false positive (GCC bug 105329) on
  // that assignment failed the -Werror build at -O2.
  s.gpu.id = std::string(1, 'g');
  s.gpu.idle_W = 50.0;
  s.gpu.tdp_W = 500.0;
  s.horizon = sim::Time::from_seconds(horizon_s);
  s.facility_interval = sim::Duration::from_seconds(0.5);
  return s;
}

/// One epoch of 10 steps on `n` GPUs in 4 pipeline stages, a checkpoint every 5 steps, a 2 s start-up.
jobs::JobSpec llm_job(std::uint32_t n, jobs::Waveform w = jobs::Waveform::automatic) {
  jobs::JobSpec j;
  j.id = 1;
  j.n_gpus = n;
  j.epochs = 1;
  j.meta.parallel.pp = 4;
  j.schedule.waveform = w;
  j.schedule.checkpoint_every_steps = 5;
  j.schedule.startup_s = 2.0;
  return j;
}

std::unique_ptr<sim::Engine> engine(sim::EngineSetup setup, std::vector<jobs::JobSpec> jobs,
                                    const models::PowerPredictor& p) {
  sim::SchedulerConfig c;
  return std::make_unique<sim::Engine>(std::move(setup), std::move(jobs), p, sim::make_scheduler(c),
                                       sim::make_placement(c));
}

const test::StepPredictor kSteps;

}  // namespace

TEST_CASE("a step-level job's facility series shows its stages filling and draining the pipeline",
          "[engine][steps]") {
  test::RecordingSink sink;
  auto e = engine(fleet(2), {llm_job(16)}, kSteps);
  e->attach(&sink);
  e->run();
  // Start-up 0-2 s at the checkpoint level (16 x 90 W); then steps from 2 s. Stage k (4 GPUs) waits k
  // slots of 0.5 s (the 1.5 s bubble over 3 slots), computes 3 s, waits the other 3 - k slots; all
  // communicate over [4.5, 5.5) and load over [5.5, 6) of the step.
  REQUIRE(sink.f_it.size() == 200);
  CHECK(sink.f_it[0] == Approx(16 * 90.0));
  CHECK(sink.f_it[3] == Approx(16 * 90.0));
  const std::vector<double> step = {
      4 * 400.0 + 12 * 100.0,  // [0, 0.5): stage 0 computes
      8 * 400.0 + 8 * 100.0,   // [0.5, 1): stages 0, 1
      12 * 400.0 + 4 * 100.0,  // [1, 1.5): stages 0-2
      16 * 400.0,              // [1.5, 3): all four
      16 * 400.0,
      16 * 400.0,
      12 * 400.0 + 4 * 100.0,  // [3, 3.5): stage 0 is done
      8 * 400.0 + 8 * 100.0,   // [3.5, 4)
      4 * 400.0 + 12 * 100.0,  // [4, 4.5): stage 3 only
      16 * 200.0,
      16 * 200.0,  // [4.5, 5.5): exposed communication
      16 * 80.0,   // [5.5, 6): exposed loading
  };
  for (int s = 0; s < 5; ++s)  // the five steps of the first checkpoint interval, 2-32 s
    for (std::size_t i = 0; i < step.size(); ++i) {
      INFO("step " << s << " sample " << i);
      CHECK(sink.f_it[4 + 12 * s + i] == Approx(step[i]));
    }
  // The checkpoint every 5 steps: 32-36 s at 90 W, then the second interval from 36 s.
  for (int i = 64; i < 72; ++i) CHECK(sink.f_it[i] == Approx(16 * 90.0));
  CHECK(sink.f_it[72] == Approx(step[0]));
  // The last checkpoint (the shutdown) ends at 70 s; then idle.
  CHECK(sink.f_it[139] == Approx(16 * 90.0));
  CHECK(sink.f_it[140] == Approx(16 * 50.0));
}

TEST_CASE("a step-level job's energy and time split by part, bubble apart", "[engine][steps]") {
  auto e = engine(fleet(2), {llm_job(16)}, kSteps);
  e->run();
  const auto& j = e->jobs().front();
  CHECK(j.state == sim::JobState::finished);
  CHECK(j.end.seconds() == Approx(70.0));  // 2 + 5 x 6 + 4 + 5 x 6 + 4
  CHECK(j.epochs_done == 2);               // its epochs are its checkpoint intervals
  // Ten steps: compute 30 s, bubble 15 s, comm 10 s, io 5 s; two 4 s checkpoints; the 2 s start-up.
  CHECK(j.parts.compute_s == Approx(30.0));
  CHECK(j.parts.bubble_s == Approx(15.0));
  CHECK(j.parts.comm_s == Approx(10.0));
  CHECK(j.parts.io_s == Approx(5.0));
  CHECK(j.parts.checkpoint_s == Approx(8.0));
  CHECK(j.parts.startup_s == Approx(2.0));
  // 16 GPUs: 10 x 16 x 1200 J compute, x 150 J bubble, x 200 J comm, x 40 J io.
  CHECK(j.parts.compute_J == Approx(192000.0));
  CHECK(j.parts.bubble_J == Approx(24000.0));
  CHECK(j.parts.comm_J == Approx(32000.0));
  CHECK(j.parts.io_J == Approx(6400.0));
  CHECK(j.parts.checkpoint_J == Approx(2 * 4 * 16 * 90.0));
  CHECK(j.parts.startup_J == Approx(2 * 16 * 90.0));
  CHECK(j.energy_J == Approx(192000.0 + 24000.0 + 32000.0 + 6400.0 + 11520.0 + 2880.0));
  // The ledger agrees: GPU energy = the job's + 16 idle GPUs x 50 W for the 30 s after it.
  CHECK(e->summary().gpu_energy_J == Approx(j.energy_J + 16 * 50.0 * 30.0));
}

TEST_CASE("a step-level job costs events per segment, not per GPU", "[engine][steps]") {
  auto small = engine(fleet(2), {llm_job(16)}, kSteps);
  auto large = engine(fleet(64), {llm_job(512)}, kSteps);
  small->run();
  large->run();
  CHECK(small->summary().events == large->summary().events);
  // Nine boundaries per step (3 stage starts, 4 stage ends, comm, io), once for the whole job: about 100
  // events for 10 steps, where one per GPU per segment would be thousands.
  CHECK(small->summary().events < 120);
}

TEST_CASE("/gpus/changes gets a step-level job's mean unless step segments are asked for",
          "[engine][steps]") {
  test::RecordingSink by_mean, by_segment;
  auto a = engine(fleet(2), {llm_job(16)}, kSteps);
  auto setup = fleet(2);
  setup.step_gpu_changes = true;
  auto b = engine(setup, {llm_job(16)}, kSteps);
  a->attach(&by_mean);
  b->attach(&by_segment);
  a->run();
  b->run();
  // By default, GPU 0 (stage 0): idle at 0, start-up 90 W, the step mean 265 W at 2 s, checkpoint, mean,
  // checkpoint, idle.
  std::vector<double> gpu0;
  for (const auto& c : by_mean.changes)
    if (c.gpu == 0) gpu0.push_back(c.W);
  CHECK(gpu0 == std::vector<double>{50.0, 90.0, 265.0, 90.0, 265.0, 90.0, 50.0});
  // With segments: stage 0 switches compute -> bubble -> comm -> io -> compute in every step.
  std::size_t rows = 0;
  for (const auto& c : by_segment.changes) rows += c.gpu == 0;
  CHECK(rows == 1 + 1 + 10 * 4 + 2 + 1);
  // The series are the same either way.
  CHECK(by_mean.f_it == by_segment.f_it);
}

TEST_CASE("waveform epochs, or a step shorter than the threshold, keeps the epoch square wave",
          "[engine][steps]") {
  test::RecordingSink epochs, slow;
  auto a = engine(fleet(2), {llm_job(16, jobs::Waveform::epochs)}, kSteps);
  auto setup = fleet(2);
  setup.step_waveform_min = sim::Duration::from_seconds(10.0);  // above the 6 s step
  auto b = engine(setup, {llm_job(16)}, kSteps);
  a->attach(&epochs);
  b->attach(&slow);
  a->run();
  b->run();
  // No start-up; the 60 s peak at the mean 265 W, then one 4 s checkpoint.
  CHECK(epochs.f_it[0] == Approx(16 * 265.0));
  CHECK(epochs.f_it[119] == Approx(16 * 265.0));
  CHECK(epochs.f_it[120] == Approx(16 * 90.0));
  CHECK(a->jobs().front().end.seconds() == Approx(64.0));
  CHECK(epochs.f_it == slow.f_it);
  // Bubble time is its own part in the epoch view too.
  CHECK(a->jobs().front().parts.bubble_s == Approx(15.0));
}

TEST_CASE("a run-time limit stops a step-level job mid-step with its energy to the instant",
          "[engine][steps]") {
  auto j = llm_job(16);
  j.limit_s = 20.0;  // the start-up and three whole steps
  auto e = engine(fleet(2), {j}, kSteps);
  e->run();
  const auto& job = e->jobs().front();
  CHECK(job.end.seconds() == Approx(20.0));
  CHECK(job.energy_J == Approx(2 * 16 * 90.0 + 3 * 16 * 1590.0));
  CHECK(job.parts.bubble_s == Approx(3 * 1.5));
}

TEST_CASE("same step-level run, same series", "[engine][steps]") {
  test::RecordingSink a, b;
  auto x = engine(fleet(2), {llm_job(16)}, kSteps);
  auto y = engine(fleet(2), {llm_job(16)}, kSteps);
  x->attach(&a);
  y->attach(&b);
  x->run();
  y->run();
  CHECK(a.f_it == b.f_it);
  CHECK(a.changes == b.changes);
}

TEST_CASE("a pipeline stage's GPUs follow the job's rank order", "[engine][steps]") {
  // 16 GPUs, tp 2 x pp 4 x dp 2. tp-cp-dp-pp (the default): stage k is ranks 4k .. 4k + 3. tp-cp-pp-dp:
  // rank r is in stage (r / 2) mod 4, so ranks 0, 1, 8, 9 are stage 0 and ranks 2, 3, 10, 11 stage 1.
  const auto gpu_draws = [](jobs::RankOrder order, std::vector<double>& f_it) {
    auto setup = fleet(2);
    setup.step_gpu_changes = true;
    auto job = llm_job(16);
    job.meta.parallel.tp = 2;
    job.meta.parallel.order = order;
    test::RecordingSink sink;
    auto e = engine(setup, {job}, kSteps);
    e->attach(&sink);
    e->run();
    std::vector<std::vector<std::pair<double, double>>> by_gpu(16);
    for (const auto& c : sink.changes) by_gpu.at(c.gpu).emplace_back(c.t, c.W);
    f_it = sink.f_it;
    return by_gpu;
  };
  std::vector<double> it_default, it_pp_inner;
  const auto a = gpu_draws(jobs::RankOrder::tp_cp_dp_pp, it_default);
  const auto b = gpu_draws(jobs::RankOrder::tp_cp_pp_dp, it_pp_inner);
  CHECK(a[0] == a[3]);
  CHECK(a[0] != a[4]);
  CHECK(b[0] == b[9]);
  CHECK(b[2] == b[11]);
  CHECK(b[0] != b[2]);
  CHECK(b[2] == a[4]);  // stage 1 draws the same either way
  // The site sees the same series: only which GPUs are in a stage moved.
  CHECK(it_default == it_pp_inner);
}
