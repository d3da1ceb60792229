// The warm-up in the engine: a run starts at -warmup, and only [0, horizon) reaches the series, the
// totals, the job table's energies and the counts; the state the warm-up leaves is where the window starts.
#include <catch2/catch.hpp>

#include "sim_test_support.hpp"

using namespace fleetwatt;
using fleetwatt::test::RecordingSink;

namespace {
// One server of 2 GPUs (idle 50 W, base 100 W, PUE 1.5), 10 s facility intervals, a 100 s window; one
// 2-GPU job of 5 epochs, each a 30 s peak at 300 W and a 10 s valley at 100 W (per GPU).
std::string scenario(double warmup_s, double submit_s) {
  return "[fleet]\nnodes = 1\ngpus_per_node = 2\ngpu = \"a800\"\ngpu_idle_w = 50\nnode_base_w = 100\n"
         "[facility]\npue = 1.5\n[output]\nfacility_interval_s = 10\nnode_interval_s = 10\n"
         "[workload]\nhorizon_s = 100\nwarmup_s = " +
         std::to_string(warmup_s) + "\n[[workload.jobs]]\nsubmit_s = " + std::to_string(submit_s) +
         "\nn_gpus = 2\nepochs = 5\npeak_w = 300\npeak_s = 30\nvalley_w = 100\nvalley_s = 10\n";
}

struct Ran {
  runs::PreparedRun run;
  std::unique_ptr<sim::Engine> engine;
  RecordingSink sink;
};

/// Runs the scenario with the job moved to `submit_s` (a job list cannot say a negative time; the
/// generator's warm-up jobs have them).
std::unique_ptr<Ran> run(double warmup_s, double submit_s) {
  auto r = std::make_unique<Ran>();
  r->run = runs::prepare_run(runs::parse_scenario(scenario(warmup_s, 0), "w.toml"));
  r->run.jobs.at(0).submit_s = submit_s;
  r->engine = runs::make_engine(r->run);
  r->engine->attach(&r->sink);
  r->engine->run();
  return r;
}
}  // namespace

TEST_CASE("a job started in the warm-up counts only from 0 on", "[engine][warmup]") {
  // Submitted and started at -50 s: epochs of 40 s put peaks over [-10, 20), [30, 60), [70, 110) and
  // valleys over [20, 30), [60, 70) in the window. Per GPU in [0, 100): 80 s x 300 W + 20 s x 100 W =
  // 26,000 J; the job's 2 GPUs 52,000 J; IT adds 100 W x 100 s; facility = 1.5 x 62,000 = 93,000 J.
  auto r = run(100, -50);
  const auto& s = r->engine->summary();
  const auto& job = r->engine->jobs().at(0);
  CHECK(job.start.seconds() == -50.0);
  CHECK(job.submit.seconds() == -50.0);
  CHECK(job.energy_J == Approx(52000.0).epsilon(1e-12));
  CHECK(job.parts.compute_s + job.parts.comm_s + job.parts.io_s == Approx(80.0).epsilon(1e-12));
  CHECK(job.parts.checkpoint_s == Approx(20.0).epsilon(1e-12));
  CHECK(s.gpu_energy_J == Approx(52000.0).epsilon(1e-12));
  CHECK(s.it_energy_J == Approx(62000.0).epsilon(1e-12));
  CHECK(s.facility_energy_J == Approx(93000.0).epsilon(1e-12));
  CHECK(s.gpu_seconds == Approx(200.0).epsilon(1e-12));  // 2 GPUs x [0, 100)
  CHECK(s.gpu_utilisation == Approx(1.0).epsilon(1e-12));
  CHECK(s.warmup_s == 100.0);
  CHECK(s.occupancy_at_start == 1.0);  // both GPUs held at 0
  CHECK(s.jobs_at_start == 1);
  CHECK(s.jobs_total == 0);  // the warm-up's jobs are not the window's workload
  CHECK(s.jobs_arrived == 0);
  CHECK(s.jobs_running == 1);
  // The facility series starts at 0: [0, 10) at (2 x 300 + 100) x 1.5 = 1,050 W, the valley [20, 30) at
  // (2 x 100 + 100) x 1.5 = 450 W; its integral is the total.
  REQUIRE(r->sink.f_start.size() == 10);
  CHECK(r->sink.f_start.front() == 0.0);
  CHECK(r->sink.f_facility[0] == Approx(1050.0).epsilon(1e-12));
  CHECK(r->sink.f_facility[2] == Approx(450.0).epsilon(1e-12));
  double integral = 0;
  for (double w : r->sink.f_facility) integral += w * 10.0;
  CHECK(integral == Approx(s.facility_energy_J).epsilon(1e-12));
  // GPU changes: none before 0; at 0 the state the warm-up left (both at 300 W), then the valley at 20 s.
  REQUIRE(r->sink.changes.size() >= 3);
  for (const auto& c : r->sink.changes) CHECK(c.t >= 0.0);
  CHECK(r->sink.changes[0] == RecordingSink::Change{0.0, 0, 300.0});
  CHECK(r->sink.changes[1] == RecordingSink::Change{0.0, 1, 300.0});
  CHECK(r->sink.changes[2] == RecordingSink::Change{20.0, 0, 100.0});
}

TEST_CASE("a warm-up with nothing in it leaves the window's results bit for bit", "[engine][warmup]") {
  auto a = run(0, 10);
  auto b = run(3600, 10);
  CHECK(a->sink.f_facility == b->sink.f_facility);
  CHECK(a->sink.f_energy == b->sink.f_energy);
  CHECK(a->sink.n_power == b->sink.n_power);
  CHECK(a->sink.changes == b->sink.changes);
  CHECK(a->engine->summary().facility_energy_J == b->engine->summary().facility_energy_J);
  CHECK(a->engine->jobs().at(0).energy_J == b->engine->jobs().at(0).energy_J);
  CHECK(b->engine->summary().occupancy_at_start == 0.0);
  CHECK(b->engine->summary().jobs_total == 1);
}

TEST_CASE("a job that ends in the warm-up leaves no trace in the window", "[engine][warmup]") {
  // Runs [-500, -300): the window sees an idle server, (2 x 50 + 100) x 1.5 = 300 W throughout.
  auto r = run(1000, -500);
  const auto& s = r->engine->summary();
  CHECK(r->engine->jobs().at(0).end.seconds() == -300.0);
  CHECK(r->engine->jobs().at(0).energy_J == 0.0);
  CHECK(s.jobs_finished == 0);
  CHECK(s.jobs_at_start == 0);
  CHECK(s.gpu_seconds == 0.0);
  CHECK(s.facility_energy_J == Approx(300.0 * 100).epsilon(1e-12));
  for (double w : r->sink.f_facility) CHECK(w == Approx(300.0).epsilon(1e-12));
}

TEST_CASE("the power ledger takes changes before 0 as state only and sends that state at 0",
          "[ledger][warmup]") {
  // 2 nodes x 2 GPUs, idle 50 W, base 100 W per node; the warm-up sets GPU 1 to 200 W and GPU 2 to 300 W.
  // Over [0, 10): IT = 2 x 100 + 50 + 200 + 300 + 50 = 800 W, 8,000 J; nothing of the warm-up is counted.
  sim::LedgerConfig c;
  c.nodes = 2;
  c.gpus_per_node = 2;
  c.gpu_idle_W = 50;
  c.node_base_W = 100;
  c.start = sim::Time::from_seconds(-10);
  c.facility_interval = sim::Duration::from_seconds(5);
  c.node_interval = sim::Duration::from_seconds(5);
  RecordingSink sink;
  sim::PowerLedger ledger(c, &sink);
  const std::vector<sim::GpuIndex> one{1}, two{2};
  ledger.set_gpu_power(sim::Time::from_seconds(-5), one, 200.0);
  ledger.set_gpu_power(sim::Time::from_seconds(-3), two, 300.0);
  CHECK(sink.changes.empty());
  ledger.close(sim::Time::from_seconds(10));
  CHECK(ledger.it_energy_J() == Approx(8000.0).epsilon(1e-12));
  CHECK(ledger.gpu_energy_J() == Approx(6000.0).epsilon(1e-12));
  CHECK(sink.f_start == std::vector<double>{0.0, 5.0});
  CHECK(sink.f_it == std::vector<double>{800.0, 800.0});
  // Node 0 holds GPUs 0 and 1: 100 + 50 + 200; node 1: 100 + 300 + 50.
  REQUIRE(sink.n_power.size() == 2);
  CHECK(sink.n_power[0] == std::vector<double>{350.0, 450.0});
  CHECK(sink.changes ==
        std::vector<RecordingSink::Change>{{0.0, 0, 50.0}, {0.0, 1, 200.0}, {0.0, 2, 300.0}, {0.0, 3, 50.0}});
}
