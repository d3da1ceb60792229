// Tests for the scheduling policies and the engine controls they use (run-time limits, power caps, pausing,
// node sleep). Every expected start time and energy below is worked out by hand from the job phases.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

#include "fleetwatt/models/hardware/clock_model.hpp"
#include "fleetwatt/sim/policies/policies.hpp"
#include "sim_test_support.hpp"

using namespace fleetwatt;
using namespace fleetwatt::sim;
using namespace fleetwatt::runs;

namespace {

// Fleet: `nodes` x `gpus` A800 GPUs idling at 50 W, 100 W of node base power, PUE 1.
runs::Scenario fleet(int nodes, int gpus, double horizon_s = 10000) {
  return runs::parse_scenario(
      "[fleet]\nnodes = " + std::to_string(nodes) + "\ngpus_per_node = " + std::to_string(gpus) +
          "\ngpu = \"a800\"\ngpu_idle_w = 50\nnode_base_w = 100\n"
          "[workload]\nhorizon_s = " +
          std::to_string(horizon_s) + "\n[[workload.jobs]]\nclass = \"vit\"\nn_gpus = 1\n",
      "t.toml");
}

jobs::JobSpec job(std::int64_t id, double submit, std::uint32_t gpus, double seconds,
                  std::uint32_t epochs = 1, double valley_s = 0.0) {
  jobs::JobSpec j;
  j.id = id;
  j.submit_s = submit;
  j.n_gpus = gpus;
  j.epochs = epochs;
  j.phases = jobs::PhaseProfile{300.0, seconds, 80.0, valley_s};
  return j;
}

struct Run {
  PreparedRun prepared;
  std::unique_ptr<Engine> engine;
  const Job& operator[](std::int64_t id) const {
    for (const auto& j : engine->jobs())
      if (j.spec.id == id) return j;
    throw std::out_of_range("no such job");
  }
};

// The fleet prepared as `fleetwatt run` prepares it, then these jobs in place of its placeholder job and a
// scheduler configured in code.
Run run(const runs::Scenario& s, std::vector<jobs::JobSpec> jobs, std::unique_ptr<Scheduler> scheduler) {
  Run r;
  r.prepared = prepare_run(s);
  r.prepared.jobs = std::move(jobs);
  r.engine = make_engine(r.prepared, std::move(scheduler), std::make_unique<FirstFitPlacement>());
  r.engine->run();
  return r;
}

double metric(const Scheduler& s, const std::string& name) {
  for (const auto& [k, v] : s.metrics())
    if (k == name) return v;
  throw std::out_of_range("no metric " + name);
}

}  // namespace

TEST_CASE("a job with a run-time limit stops mid-epoch and draws power until then", "[policies]") {
  auto j = job(1, 0, 2, 10, 3, 2);
  j.limit_s = 15.0;  // 3 epochs of 12 s would end at 36 s
  auto r = run(fleet(1, 4), {j}, std::make_unique<FifoScheduler>());
  CHECK(r[1].state == JobState::finished);
  CHECK(r[1].end.seconds() == 15.0);
  // Per GPU: peak 0-10 s at 300 W, valley 10-12 s at 80 W, peak 12-15 s at 300 W.
  CHECK(r[1].energy_J == Approx(2 * (300 * 10 + 80 * 2 + 300 * 3)));
  // The ledger agrees: 2 GPUs busy for 15 s on a 4-GPU, 100 W node, then idle to 10,000 s.
  const double it = 15 * 100 + 2 * (300 * 13 + 80 * 2) + 2 * 50 * 15 + (10000 - 15) * (100 + 4 * 50);
  CHECK(r.engine->ledger().it_energy_J() == Approx(it).epsilon(1e-12));
}

TEST_CASE("shortest predicted job first lets short jobs overtake", "[policies]") {
  auto r = run(fleet(1, 1), {job(1, 0, 1, 100), job(2, 1, 1, 50), job(3, 2, 1, 10)},
               std::make_unique<SjfScheduler>());
  CHECK(r[3].start.seconds() == 100.0);  // the 10 s job goes first when the GPU frees
  CHECK(r[2].start.seconds() == 110.0);
}

TEST_CASE("EASY backfills jobs that end before the head's reservation", "[policies]") {
  // A (2 GPUs, 100 s) runs; head B needs all 4 GPUs: reserved at 100 s. C (2 GPUs, 50 s) ends at 52 s, before
  // the reservation: backfilled at 2 s. D (2 GPUs, 200 s) would delay B: it waits until B ends at 110 s.
  const std::vector<jobs::JobSpec> jobs{job(1, 0, 2, 100), job(2, 1, 4, 10), job(3, 2, 2, 50),
                                        job(4, 3, 2, 200)};
  auto easy = run(fleet(1, 4), jobs, std::make_unique<EasyBackfillScheduler>());
  CHECK(easy[3].start.seconds() == 2.0);
  CHECK(easy[2].start.seconds() == 100.0);
  CHECK(easy[4].start.seconds() == 110.0);
  auto fifo = run(fleet(1, 4), jobs, std::make_unique<FifoScheduler>());
  CHECK(fifo[3].start.seconds() == 110.0);

  // With the user's estimate of 150 s for C, C would overrun the reservation: no backfill.
  auto with_estimate = jobs;
  with_estimate[2].user_estimate_s = 150.0;
  auto user = run(fleet(1, 4), with_estimate, std::make_unique<EasyBackfillScheduler>(EstimateSource::user));
  CHECK(user[3].start.seconds() == 110.0);
}

TEST_CASE("a facility power cap queues jobs whose peak would break it", "[policies]") {
  // Idle: 100 W + 4 x 50 W = 300 W. A 2-GPU job adds 2 x (300 - 50) = 500 W at its peak.
  auto r = run(fleet(1, 4), {job(1, 0, 2, 10), job(2, 0, 2, 10)},
               std::make_unique<PowerCapScheduler>(800, false, 0.5));
  CHECK(r[2].start.seconds() == 10.0);
  CHECK(r.engine->ledger().peak_facility_W() == Approx(800.0));
  auto free = run(fleet(1, 4), {job(1, 0, 2, 10), job(2, 0, 2, 10)}, std::make_unique<FifoScheduler>());
  CHECK(free.engine->ledger().peak_facility_W() == Approx(1300.0));
}

/// How much the clock model stretches a 300 W phase on an A800 (TDP 400 W) capped at `cap_W`: the clock
/// runs at f = (cap - F) / (300 - F) above the floor F = floor_fraction x 400 W, never below the model's
/// minimum clock, and the clock-bound share b of the time stretches as 1 / f: b / f + 1 - b.
double stretch_300_W(double cap_W) {
  const auto& m = models::clock_model();
  const double floor = m.floor_fraction * 400.0;
  const double f = std::max(models::ClockModel::kMinClock, (cap_W - floor) / (300.0 - floor));
  return m.clock_bound_share / f + 1.0 - m.clock_bound_share;
}

TEST_CASE("GPU power capping stretches a job by the clock model instead of queueing it", "[policies]") {
  // Cap 1,050 W: the second job gets (1050 - 800) / 2 = 125 W of headroom per GPU, a 175 W cap. With the
  // fitted model (floor 0.293 x 400 = 117.2 W, b = 0.192): f = 57.8 / 182.8 = 0.316, 10 s of work takes
  // 10 x 1.415 = 14.2 s.
  const double k = stretch_300_W(175.0);
  CHECK(k == Approx(0.192 / (57.8 / 182.8) + 0.808).epsilon(0.001));
  auto r = run(fleet(1, 4), {job(1, 0, 2, 10), job(2, 0, 2, 10)},
               std::make_unique<PowerCapScheduler>(1050, true, 0.3));
  CHECK(r[2].start.seconds() == 0.0);
  CHECK(r[2].controls.power_cap_W == Approx(175.0));
  CHECK(r[2].end.seconds() == Approx(10.0 * k).epsilon(1e-9));
  CHECK(r.engine->ledger().peak_facility_W() == Approx(1050.0));
  CHECK(r[2].energy_J == Approx(2 * 175.0 * 10.0 * k).epsilon(1e-9));
  // What policies assume of the capped job is what the engine ran: 10 s stretched by the same clock model.
  CHECK(estimated_runtime(r[2], EstimateSource::predictor).seconds() == Approx(10.0 * k).epsilon(1e-9));
  CHECK(estimated_runtime(r[1], EstimateSource::predictor).seconds() == 10.0);
}

TEST_CASE("carbon-aware deferral waits for a low-intensity hour within the deadline", "[policies]") {
  // 500 g/kWh for the first 100 s, then 100 g/kWh; threshold 300.
  auto signal = std::make_shared<const sim::GridSignal>(std::vector<double>{0, 100},
                                                        std::vector<double>{500, 100}, "g/kWh");
  auto a = job(1, 0, 1, 10), b = job(2, 0, 1, 10), c = job(3, 0, 1, 10);
  b.deferrable = true;
  b.deadline_s = 1000;
  c.deferrable = true;
  c.deadline_s = 50;  // must start by 40 s to finish by 50 s
  auto r = run(fleet(1, 4), {a, b, c}, std::make_unique<CarbonAwareScheduler>(signal, 300));
  CHECK(r[1].start.seconds() == 0.0);
  CHECK(r[2].start.seconds() == 100.0);
  CHECK(r[3].start.seconds() == 40.0);
  CHECK(r[3].end.seconds() <= 50.0);
}

TEST_CASE("a waiting deferrable job holds its GPUs for its latest start, so later jobs cannot take them",
          "[policies]") {
  // Intensity always above the threshold. D (2 GPUs, 100 s, deadline 300 s) must start by 200 s. A (1 GPU,
  // 150 s) ends before that and starts at once; B (1 GPU, 500 s, submitted at 10 s) would still hold a GPU at
  // 200 s, leaving D one of its two: B waits. D starts at 200 s (its latest start) and meets its deadline; B
  // follows when D ends. Without the hold B would start at 10 s and D at 510 s, missing it.
  auto signal =
      std::make_shared<const sim::GridSignal>(std::vector<double>{0}, std::vector<double>{500}, "g/kWh");
  auto d = job(1, 0, 2, 100), a = job(2, 0, 1, 150), b = job(3, 10, 1, 500);
  d.deferrable = true;
  d.deadline_s = 300;
  auto r = run(fleet(1, 2), {d, a, b}, std::make_unique<CarbonAwareScheduler>(signal, 300));
  CHECK(r[2].start.seconds() == 0.0);
  CHECK(r[1].start.seconds() == 200.0);
  CHECK(r[1].end.seconds() == 300.0);
  CHECK(r[3].start.seconds() == 300.0);
}

TEST_CASE("in a low-intensity hour a deferrable job with little slack starts at once", "[policies]") {
  // Intensity below the threshold: D (2 GPUs, 100 s, deadline 150 s, latest start 50 s) is not deferred, and
  // its own deadline must not hold it back: it starts at 0 on the free node.
  auto signal =
      std::make_shared<const sim::GridSignal>(std::vector<double>{0}, std::vector<double>{100}, "g/kWh");
  auto d = job(1, 0, 2, 100);
  d.deferrable = true;
  d.deadline_s = 150;
  auto r = run(fleet(1, 2), {d}, std::make_unique<CarbonAwareScheduler>(signal, 300));
  CHECK(r[1].start.seconds() == 0.0);
  CHECK(r[1].end.seconds() == 100.0);
}

TEST_CASE("idle nodes sleep after the timeout and wake, with latency and energy, on demand", "[policies]") {
  auto r = run(fleet(2, 1, 1000), {job(1, 0, 1, 10), job(2, 500, 1, 10)},
               std::make_unique<ConsolidatingScheduler>(100, 10, 20, 2000));
  CHECK(r[2].start.seconds() == 520.0);  // node 0 woke at 500, usable 20 s later
  // Node 1: awake 0-100 s (100 + 50 W), asleep after (10 W).
  const double node1 = 150 * 100 + 10 * 900;
  // Node 0: job 0-10 (400 W), idle 10-110 (150 W), asleep 110-500 (10 W), waking 500-520 (100 W + 2000 J / 20
  // s, GPU off), job 520-530 (400 W), idle 530-630 (150 W), asleep 630-1000 (10 W).
  const double node0 = 400 * 10 + 150 * 100 + 10 * 390 + 200 * 20 + 400 * 10 + 150 * 100 + 10 * 370;
  CHECK(r.engine->ledger().it_energy_J() == Approx(node0 + node1).epsilon(1e-12));
}

TEST_CASE("a demand-response event pauses jobs to meet its target and reports the lost GPU time",
          "[policies]") {
  // Two 2-GPU jobs of 1,000 s; between 100 s and 200 s the facility must stay at or under 800 W (idle 300 W
  // plus one job's 500 W): the later-started job pauses for 100 s and ends at 1,100 s.
  auto dr = std::make_unique<DemandResponseScheduler>(100, 200, 800);
  auto* policy = dr.get();
  auto r = run(fleet(1, 4, 2000), {job(1, 0, 2, 1000), job(2, 0, 2, 1000)}, std::move(dr));
  CHECK(r[1].end.seconds() == 1000.0);
  CHECK(r[2].end.seconds() == 1100.0);
  CHECK(r[2].controls.paused_gpu_seconds == Approx(200.0));
  CHECK(metric(*policy, "dr_lost_gpu_hours") == Approx(200.0 / 3600.0));
  // Energy: both at peak 0-100 and 200-1000 (1,300 W), one 100-200 (800 W), one 1000-1100 (800 W), idle
  // after.
  const double it = 1300 * 100 + 800 * 100 + 1300 * 800 + 800 * 100 + 300 * 900;
  CHECK(r.engine->ledger().it_energy_J() == Approx(it).epsilon(1e-12));
}

TEST_CASE("a demand-response event can cap GPUs instead of pausing, and the work left finishes later",
          "[policies]") {
  // Two 2-GPU jobs of 1,000 s at 300 W on one 4-GPU node (idle 50 W, base 100 W): 1,300 W IT. Between 100 s
  // and 200 s the target is 900 W: 300 + 4 (c - 50) <= 900 gives a common cap c = 200 W. The clock model
  // stretches the work by k (stretch_300_W), so the event does 100 f s of each job's work with f = 1 / k,
  // and both end at 200 + (900 - 100 f) = 1100 - 100 f s. GPU time lost: 2 jobs x 2 GPUs x 100 s x (1 - f).
  auto dr =
      std::make_unique<DemandResponseScheduler>(100, 200, 900, DemandResponseScheduler::Action::cap, 0.3);
  auto* policy = dr.get();
  auto r = run(fleet(1, 4), {job(1, 0, 2, 1000), job(2, 0, 2, 1000)}, std::move(dr));
  const double f = 1.0 / stretch_300_W(200.0);
  const double end = 1100.0 - 100.0 * f;
  CHECK(policy->event_cap_W() == Approx(200.0));
  CHECK(r[1].controls.paused_gpu_seconds == 0.0);
  CHECK(r[1].end.seconds() == Approx(end));
  CHECK(r[2].end.seconds() == Approx(end));
  CHECK(r[1].controls.capped_gpu_seconds == Approx(2 * 100 * (1 - f)));
  CHECK(metric(*policy, "dr_lost_gpu_hours") == Approx(4 * 100 * (1 - f) / 3600.0));
  CHECK(metric(*policy, "dr_capped_jobs") == 2.0);
  // Energy: 1,300 W, then 900 W during the event, 1,300 W to the end, idle 300 W after.
  const double it = 1300 * 100 + 900 * 100 + 1300 * (end - 200) + 300 * (10000 - end);
  CHECK(r.engine->ledger().it_energy_J() == Approx(it).epsilon(1e-9));
  // Each job's GPU energy: 2 GPUs x (300 W x (1000 - 100 f) s + 200 W x 100 s).
  CHECK(r[1].energy_J == Approx(2 * (300 * (1000 - 100 * f) + 200 * 100)).epsilon(1e-9));
  CHECK(r[1].parts.compute_J == Approx(r[1].energy_J).epsilon(1e-9));  // no valley: all of it is compute
}

TEST_CASE("a demand-response cap that cannot reach the target also pauses the latest jobs", "[policies]") {
  // Target 500 W needs c <= 100 W, under the floor 0.3 x 400 W = 120 W: both are capped at 120 W
  // (300 + 4 x 70 = 580 W, still too much) and the later job pauses: 300 + 2 x 70 = 440 W. 120 W is
  // 2.8 W above the clock model's floor (117.2 W): the capped job runs at its minimum clock.
  auto dr =
      std::make_unique<DemandResponseScheduler>(100, 200, 500, DemandResponseScheduler::Action::cap, 0.3);
  auto* policy = dr.get();
  auto r = run(fleet(1, 4), {job(1, 0, 2, 1000), job(2, 0, 2, 1000)}, std::move(dr));
  CHECK(policy->event_cap_W() == Approx(120.0));
  CHECK(r[2].controls.paused_gpu_seconds == Approx(200.0));
  CHECK(r[1].controls.paused_gpu_seconds == 0.0);
  const double f = 1.0 / stretch_300_W(120.0);
  CHECK(r[1].end.seconds() == Approx(1100.0 - 100.0 * f));
  CHECK(r[2].end.seconds() == Approx(1100.0));
  CHECK(metric(*policy, "dr_paused_jobs") == 1.0);
}

TEST_CASE("consolidate refuses a negative sleep power, wake-up or timeout at its key",
          "[policies][consolidate][edges]") {
  // sleep_w = -1e300 was accepted and made the run's IT energy negative (found by the generated scenarios).
  for (const char* key : {"sleep_w", "idle_timeout_s", "wake_latency_s", "wake_energy_j"}) {
    INFO(key);
    SchedulerConfig c;
    c.policy = "consolidate";
    jobs::ParamSet p("scheduler.consolidate", {"s.toml", 3, 1});
    p.set(key, {-1.0, {"s.toml", 4, 1}});
    c.policy_params["consolidate"] = p;
    CHECK_THROWS_WITH(make_scheduler(c), std::string("s.toml:4:1: scheduler.consolidate.") + key +
                                             ": must be zero or more, got -1");
  }
}
