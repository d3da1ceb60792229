// Fleets of several node groups: layout, idle power, per-type phases, one GPU type per job, job sizes,
// run-time matching on the type a job gets, and determinism. Expected numbers are hand calculations.
#include <catch2/catch.hpp>

#include <cmath>

#include "fleetwatt/jobs/job_generator.hpp"
#include "fleetwatt/jobs/job_inference.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/policies/policies.hpp"
#include "sim_test_support.hpp"

using namespace fleetwatt;

namespace {

models::GpuHardware gpu(const std::string& id, double idle_W, double tdp_W) {
  models::GpuHardware g;
  g.id = id;
  g.idle_W = idle_W;
  g.tdp_W = tdp_W;
  return g;
}

/// Type A: peak 200 W for samples/100 s, valley 100 W for 5 s. Type B: peak 80 W for 3 x samples/100 s,
/// valley 40 W for 10 s. Epoch time is affine in the dataset size, so a run-time match is exact.
class ByTypePredictor final : public models::PowerPredictor {
 public:
  std::string_view name() const override { return "by_type"; }
  jobs::EpochPlan plan(const jobs::JobSpec& job, const models::GpuHardware& g) const override {
    const double s = job.meta.dataset_samples / 100.0;
    if (g.id == "typea") return jobs::EpochPlan::from_profile({200.0, s, 100.0, 5.0});
    return jobs::EpochPlan::from_profile({80.0, 3.0 * s, 40.0, 10.0});
  }
};

/// ByTypePredictor, but a dataset above 5,000 samples "does not fit" type B's memory, and one above 50,000
/// fits neither type.
class PickyPredictor final : public models::PowerPredictor {
 public:
  std::string_view name() const override { return "picky"; }
  jobs::EpochPlan plan(const jobs::JobSpec& job, const models::GpuHardware& g) const override {
    if (job.meta.dataset_samples > 50000.0 || (g.id == "typeb" && job.meta.dataset_samples > 5000.0))
      throw jobs::ConfigError({"picky", 1, 1}, "model", "does not fit " + g.id);
    return ByTypePredictor{}.plan(job, g);
  }
};

jobs::JobSpec job(std::int64_t id, std::uint32_t n_gpus, std::uint32_t epochs, double submit_s = 0.0) {
  jobs::JobSpec j;
  j.id = id;
  j.n_gpus = n_gpus;
  j.epochs = epochs;
  j.submit_s = submit_s;
  j.meta.dataset_samples = 1000.0;  // type A: 10 s peak; type B: 30 s peak
  return j;
}

/// Group "a": 2 nodes x 4 GPUs of type A (idle 50 W, node base 100 W); group "b": 1 node x 2 GPUs of type
/// B (idle 20 W, node base 40 W).
sim::EngineSetup two_groups(double horizon_s, double pue = 1.5) {
  sim::EngineSetup s;
  s.groups = {{"a", 2, 4, gpu("typea", 50.0, 300.0), 100.0}, {"b", 1, 2, gpu("typeb", 20.0, 100.0), 40.0}};
  s.gpu = s.groups.front().gpu;
  s.nodes = 3;
  s.gpus_per_node = 4;
  s.pue = pue;
  s.horizon = sim::Time::from_seconds(horizon_s);
  return s;
}

std::unique_ptr<sim::Engine> engine(sim::EngineSetup setup, std::vector<jobs::JobSpec> jobs,
                                    const models::PowerPredictor& p,
                                    const std::string& placement = "first_fit") {
  sim::SchedulerConfig c;
  c.placement = placement;
  return std::make_unique<sim::Engine>(std::move(setup), std::move(jobs), p, sim::make_scheduler(c),
                                       sim::make_placement(c));
}

std::uint32_t group_of(const sim::Engine& e, sim::GpuIndex g) {
  return e.layout().group_of_node(e.cluster().node_of(g));
}

}  // namespace

TEST_CASE("a cluster of node groups numbers GPUs node-major through the groups", "[sim][fleet]") {
  const std::vector<sim::NodeBlock> blocks{{2, 4}, {1, 2}};
  sim::Cluster c(blocks);
  CHECK(c.nodes() == 3);
  CHECK(c.gpus() == 10);
  CHECK_FALSE(c.uniform());
  CHECK(c.gpus_per_node() == 4);  // the largest node
  CHECK(c.gpus_on(2) == 2);
  CHECK(c.first_gpu(1) == 4);
  CHECK(c.first_gpu(2) == 8);
  CHECK(c.node_of(7) == 1);
  CHECK(c.node_of(9) == 2);
  CHECK(c.free_gpus_of(2) == std::vector<sim::GpuIndex>{8, 9});
}

TEST_CASE("an idle two-group fleet draws each group's node base and GPU idle power", "[sim][fleet]") {
  ByTypePredictor p;
  auto e = engine(two_groups(1000.0), {}, p);
  e->run();
  // IT: 2 x 100 W + 8 x 50 W + 1 x 40 W + 2 x 20 W = 680 W; facility x 1.5 = 1020 W; over 1000 s.
  CHECK(e->ledger().it_power_W() == Approx(680.0));
  CHECK(e->summary().facility_energy_J == Approx(1020.0 * 1000.0));
  CHECK(e->summary().gpu_energy_J == Approx((8 * 50.0 + 2 * 20.0) * 1000.0));
  REQUIRE(e->summary().fleet_groups.size() == 2);
  CHECK(e->summary().fleet_groups[1] == "b: 1 nodes x 2 typeb (idle 20 W/GPU, node base 40 W)");
}

TEST_CASE("jobs run on one group each with that type's phases, and their energy is the hand sum",
          "[sim][fleet]") {
  ByTypePredictor p;
  // FIFO, first fit, groups in order: job 0 (8 GPUs, 2 epochs) fills group a; job 1 (2 GPUs) finds no room
  // in a and runs on b; job 2 (4 GPUs) fits neither now and starts on a when job 0 ends at 2 x 15 = 30 s.
  auto e = engine(two_groups(100.0), {job(0, 8, 2), job(1, 2, 1), job(2, 4, 1)}, p);
  test::RecordingSink sink;  // keeps GPU changes, so the ledger keeps each GPU's power
  e->attach(&sink);
  e->run();
  const auto& jobs = e->jobs();
  CHECK(jobs[0].gpu_type.preset == "typea");
  CHECK(jobs[1].gpu_type.preset == "typeb");
  CHECK(jobs[2].gpu_type.preset == "typea");
  CHECK(jobs[1].gpus == sim::Placement{8, 9});
  // Job 0 on A: 8 GPUs x 2 epochs x (200 W x 10 s + 100 W x 5 s) = 40,000 J, 30 s.
  CHECK(jobs[0].energy_J == Approx(40000.0));
  CHECK(jobs[0].end.seconds() == Approx(30.0));
  // Job 1 on B: 2 GPUs x (80 W x 30 s + 40 W x 10 s) = 5,600 J, 40 s.
  CHECK(jobs[1].energy_J == Approx(5600.0));
  CHECK(jobs[1].end.seconds() == Approx(40.0));
  CHECK(jobs[1].peak_W() == 80.0);
  // Job 2 on A from 30 s: 4 x 2,500 J = 10,000 J, ends at 45 s.
  CHECK(jobs[2].start.seconds() == Approx(30.0));
  CHECK(jobs[2].end.seconds() == Approx(45.0));
  CHECK(jobs[2].energy_J == Approx(10000.0));
  // GPU energy over 100 s: idle 8 x 50 + 2 x 20 = 440 W, plus each job's increment over its GPUs' idle:
  // job 0 8 x 2 x (150 x 10 + 50 x 5) = 28,000; job 1 2 x (60 x 30 + 20 x 10) = 4,000; job 2 4 x 1,750.
  const double gpu_J = 440.0 * 100.0 + 28000.0 + 4000.0 + 7000.0;
  CHECK(e->summary().gpu_energy_J == Approx(gpu_J));
  // IT adds node bases 2 x 100 + 40 W; facility x 1.5.
  CHECK(e->summary().facility_energy_J == Approx(1.5 * (gpu_J + 240.0 * 100.0)));
  // After the run every GPU is back at its own type's idle power, and the change list says so.
  CHECK(e->ledger().gpu_power_W(0) == 50.0);
  CHECK(e->ledger().gpu_power_W(9) == 20.0);
  CHECK(sink.changes.back().W == 50.0);
}

TEST_CASE("before placement a job's power bound covers every type, after it, its own", "[sim][fleet]") {
  ByTypePredictor p;
  auto e = engine(two_groups(5.0), {job(0, 8, 1), job(1, 8, 1)}, p);
  e->run();
  const auto& queued = e->jobs()[1];
  REQUIRE(queued.state == sim::JobState::queued);
  // Highest phase power over the types (200 W on A) less the lowest idle (20 W on B).
  CHECK(sim::peak_increment_per_gpu_W(queued, 50.0) == Approx(180.0));
  CHECK(sim::peak_increment_per_gpu_W(e->jobs()[0], 999.0) == Approx(150.0));  // placed on A: 200 - 50
}

TEST_CASE("a job larger than every node group is refused before the run", "[sim][fleet]") {
  ByTypePredictor p;
  // 9 GPUs: the fleet has 10, but a job runs within one group and the largest has 8. The engine says it in
  // the loader's words (one check, sim::check_gpu_count), and refuses a job of no GPUs as well.
  try {
    (void)engine(two_groups(100.0), {job(7, 9, 1)}, p);
    FAIL("expected a ConfigError");
  } catch (const jobs::ConfigError& e) {
    CHECK(e.field() == "n_gpus");
    CHECK(e.message() == "job 7 asks for 9 GPUs but the largest node group has 8");
  }
  try {
    (void)engine(two_groups(100.0), {job(8, 0, 1)}, p);
    FAIL("expected a ConfigError");
  } catch (const jobs::ConfigError& e) {
    CHECK(e.message() == "job 8 asks for no GPUs");
  }
}

TEST_CASE("no placement policy mixes GPU types in one job", "[sim][fleet]") {
  ByTypePredictor p;
  for (const char* placement : {"first_fit", "pack", "spread", "topology_aware"}) {
    INFO(placement);
    sim::EngineSetup s = two_groups(2000.0);
    // Three groups, two sharing type A: 3 x 4 (A), 2 x 2 (B), 2 x 8 (A).
    s.groups.push_back({"c", 2, 8, gpu("typea", 50.0, 300.0), 100.0});
    s.groups[0].nodes = 3;
    std::vector<jobs::JobSpec> jobs;
    jobs::Random rng(11);
    for (int i = 0; i < 200; ++i)
      jobs.push_back(job(i, 1 + static_cast<std::uint32_t>(rng.uniform() * 12.0), 1, 5.0 * i));
    auto e = engine(s, jobs, p, placement);
    e->run();
    int started = 0;
    for (const auto& j : e->jobs()) {
      if (j.gpus.empty()) continue;
      ++started;
      const auto g0 = group_of(*e, j.gpus.front());
      for (auto g : j.gpus) CHECK(group_of(*e, g) == g0);
      CHECK(j.gpu_type.preset == s.groups[g0].gpu.id);
      CHECK(j.gpu_type.group == g0);
    }
    CHECK(started > 150);
  }
}

TEST_CASE("a job matched to a recorded run time runs that long on a non-reference type", "[sim][fleet]") {
  ByTypePredictor p;
  sim::EngineSetup s = two_groups(5000.0);
  s.groups[0] = {"a", 1, 1, gpu("typea", 50.0, 300.0), 100.0};  // one A GPU: 2-GPU jobs must go to B
  // With prepare_run's estimate: epochs and the inferred dataset size match 1,000 s on the reference type
  // (A).
  auto matched = [&](std::int64_t id, std::uint32_t n) {
    auto j = job(id, n, 1);
    j.inferred |= jobs::inferred::dataset_samples | jobs::inferred::epochs;
    (void)jobs::match_runtime(j, 1000.0, runs::runtime_estimate(p, s.gpu), {});
    return j;
  };
  auto e = engine(s, {matched(0, 2), matched(1, 1)}, p);
  e->run();
  const auto& on_b = e->jobs()[0];
  const auto& on_a = e->jobs()[1];
  REQUIRE(on_b.gpu_type.preset == "typeb");
  REQUIRE(on_a.gpu_type.preset == "typea");
  // The recorded 1,000 s holds on both types (to the engine's 1 ns clock per phase).
  CHECK((on_b.end - on_b.start).seconds() == Approx(1000.0).epsilon(1e-9));
  CHECK((on_a.end - on_a.start).seconds() == Approx(1000.0).epsilon(1e-9));
  // On A: round(1000 / 15 s) = 67 epochs, the dataset scaled so 67 x (s / 100 + 5) = 1000: s = 992.54. On B
  // that dataset's epoch is 3 x 9.9254 + 10 = 39.776 s: round(1000 / 39.776) = 25 epochs, and
  // 25 x (3 s / 100 + 10) = 1000 gives the dataset back: 1,000 samples.
  CHECK(on_a.spec.epochs == 67);
  CHECK(on_a.spec.meta.dataset_samples == Approx(100.0 * (1000.0 / 67.0 - 5.0)));
  CHECK(on_b.spec.epochs == 25);
  CHECK(on_b.spec.meta.dataset_samples == Approx(1000.0));
}

TEST_CASE("a heterogeneous run is deterministic", "[sim][fleet]") {
  ByTypePredictor p;
  std::vector<jobs::JobSpec> jobs;
  jobs::Random rng(5);
  for (int i = 0; i < 100; ++i)
    jobs.push_back(job(i, 1 + static_cast<std::uint32_t>(rng.uniform() * 8.0), 2, 3.0 * i));
  auto a = engine(two_groups(600.0), jobs, p, "pack");
  auto b = engine(two_groups(600.0), jobs, p, "pack");
  a->run();
  b->run();
  CHECK(a->summary().facility_energy_J == b->summary().facility_energy_J);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    CHECK(a->jobs()[i].gpus == b->jobs()[i].gpus);
    CHECK(a->jobs()[i].energy_J == b->jobs()[i].energy_J);
  }
}

TEST_CASE("a job is never placed on a type its predictor refuses it on", "[sim][fleet]") {
  PickyPredictor p;
  // Job 0 (8 GPUs) fills group a for 15 s. Job 1 (2 GPUs, 9,000 samples) does not fit type B: it waits for a
  // and runs there from 15 s (peak 90 s + valley 5 s), although b's two GPUs are free all along.
  auto big = job(1, 2, 1);
  big.meta.dataset_samples = 9000.0;
  auto e = engine(two_groups(200.0), {job(0, 8, 1), big}, p);
  e->run();
  CHECK(e->jobs()[1].gpu_type.preset == "typea");
  CHECK(e->jobs()[1].start.seconds() == Approx(15.0));
  CHECK(e->jobs()[1].end.seconds() == Approx(15.0 + 95.0));
  // Fits no type: refused up front with the predictor's message.
  auto huge = job(2, 1, 1);
  huge.meta.dataset_samples = 60000.0;
  CHECK_THROWS_WITH(engine(two_groups(200.0), {huge}, p), Catch::Contains("does not fit typea"));
}
