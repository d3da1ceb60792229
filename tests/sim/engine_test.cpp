// Engine behaviour: job life cycle, FIFO queueing, no double booking, the horizon, determinism, bad jobs.
#include <catch2/catch.hpp>
#include <map>

#include "sim_test_support.hpp"

using fleetwatt::test::make_run;
using namespace fleetwatt::sim;

namespace {
const std::string kOneServer = R"(
[fleet]
nodes = 1
gpus_per_node = 4
gpu = "a800"
gpu_idle_w = 50
node_base_w = 100
[workload]
horizon_s = 1000
)";

std::string job(int id, double submit, int gpus, int epochs, double peak_s = 10, double valley_s = 0) {
  return "[[workload.jobs]]\nid = " + std::to_string(id) + "\nsubmit_s = " + std::to_string(submit) +
         "\nn_gpus = " + std::to_string(gpus) + "\nepochs = " + std::to_string(epochs) +
         "\npeak_w = 300\npeak_s = " + std::to_string(peak_s) +
         "\nvalley_w = 80\nvalley_s = " + std::to_string(valley_s) + "\n";
}

const Job& by_id(const Engine& e, std::int64_t id) {
  for (const auto& j : e.jobs())
    if (j.spec.id == id) return j;
  FAIL("no job " << id);
  throw;
}
}  // namespace

TEST_CASE("a job runs its epochs as peak then valley phases and its energy is their sum", "[engine]") {
  fleetwatt::test::RecordingSink sink;
  auto run = make_run(kOneServer + job(1, 5, 2, 3, 10, 2));
  run.engine->attach(&sink);
  run.engine->run();
  const Job& j = by_id(*run.engine, 1);
  CHECK(j.state == JobState::finished);
  CHECK(j.start.seconds() == 5);
  CHECK(j.end.seconds() == 5 + 3 * 12);
  CHECK(j.epochs_done == 3);
  // 2 GPUs x 3 epochs x (300 W x 10 s + 80 W x 2 s).
  CHECK(j.energy_J == Approx(2 * 3 * (300 * 10 + 80 * 2)));
  // GPU 0: idle at 0, then peak/valley changes at 5, 15, 17, 27, 29, 39, idle at 41.
  std::vector<double> times;
  for (const auto& c : sink.changes)
    if (c.gpu == 0) times.push_back(c.t);
  CHECK(times == std::vector<double>{0, 5, 15, 17, 27, 29, 39, 41});
}

TEST_CASE("with more demand than GPUs, jobs wait and start in FIFO order", "[engine][fifo]") {
  // A takes the whole server; B (4 GPUs) waits for A; C (1 GPU) could fit nowhere before B and must not
  // overtake it under FIFO even after A ends, because B takes the server first.
  auto run = make_run(kOneServer + job(1, 0, 4, 1) + job(2, 1, 4, 1) + job(3, 2, 1, 1) + job(4, 3, 3, 1));
  run.engine->run();
  CHECK(by_id(*run.engine, 1).start.seconds() == 0);
  CHECK(by_id(*run.engine, 2).start.seconds() == 10);
  CHECK(by_id(*run.engine, 3).start.seconds() == 20);
  CHECK(by_id(*run.engine, 4).start.seconds() == 20);  // C and D fit together once B is gone
  CHECK(run.engine->summary().jobs_finished == 4);
}

TEST_CASE("no GPU is ever held by two jobs at once over a whole busy run", "[engine][fifo]") {
  auto run = make_run(R"(
seed = 7
[fleet]
nodes = 20
gpus_per_node = 4
[workload]
horizon_s = 21600
[workload.generator]
rate_per_hour = 400
diurnal_amplitude = 0.5
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 2, 3, 4, 8, 12]
epochs = [1, 6]
dataset_samples = [20000, 80000]
)");
  run.engine->run();
  const auto& jobs = run.engine->jobs();
  // Independent check from the job table: intervals on each GPU must not overlap.
  std::map<GpuIndex, std::vector<std::pair<double, double>>> use;
  std::size_t started = 0;
  for (const auto& j : jobs) {
    if (j.state != JobState::running && j.state != JobState::finished) continue;
    ++started;
    const double end = j.state == JobState::finished ? j.end.seconds() : 21600;
    CHECK(j.gpus.size() == j.spec.n_gpus);
    for (auto g : j.gpus) use[g].push_back({j.start.seconds(), end});
  }
  REQUIRE(started > 100);
  REQUIRE(run.engine->summary().jobs_queued > 0);  // the run really was oversubscribed
  for (auto& [g, spans] : use) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].first >= spans[i - 1].second);
  }
  // FIFO: jobs start in submission order.
  std::vector<std::pair<double, double>> submit_start;
  for (const auto& j : jobs)
    if (j.state == JobState::running || j.state == JobState::finished)
      submit_start.push_back({j.spec.submit_s, j.start.seconds()});
  std::sort(submit_start.begin(), submit_start.end());
  for (std::size_t i = 1; i < submit_start.size(); ++i)
    CHECK(submit_start[i].second >= submit_start[i - 1].second);
}

TEST_CASE("jobs still running at the horizon are cut there, with energy up to the horizon", "[engine]") {
  auto run = make_run(kOneServer + job(1, 0, 4, 1000, 30, 10));
  run.engine->run();
  const Job& j = by_id(*run.engine, 1);
  CHECK(j.state == JobState::running);
  // 1000 s = 25 whole epochs of 40 s: 4 GPUs x 25 x (300 x 30 + 80 x 10).
  CHECK(j.energy_J == Approx(4 * 25 * (300 * 30 + 80 * 10)));
  CHECK(run.engine->summary().jobs_running == 1);
  CHECK(run.engine->summary().gpu_energy_J == Approx(j.energy_J));
}

TEST_CASE("jobs submitted after the horizon never arrive", "[engine]") {
  auto run = make_run(kOneServer + job(1, 999.5, 1, 1) + job(2, 1000, 1, 1));
  run.engine->run();
  CHECK(by_id(*run.engine, 1).state == JobState::running);
  CHECK(by_id(*run.engine, 2).state == JobState::pending);
  CHECK(run.engine->summary().jobs_arrived == 1);
}

TEST_CASE("the same scenario and seed give bit-identical results", "[engine][determinism]") {
  const std::string toml = R"(
seed = 99
[fleet]
nodes = 8
[workload]
horizon_s = 7200
[workload.generator]
rate_per_hour = 200
[[workload.generator.mix]]
class = "bert"
n_gpus = [1, 4, 8]
epochs = [1, 4]
dataset_samples = [10000, 50000]
)";
  fleetwatt::test::RecordingSink a, b;
  auto r1 = make_run(toml);
  auto r2 = make_run(toml);
  r1.engine->attach(&a);
  r2.engine->attach(&b);
  r1.engine->run();
  r2.engine->run();
  CHECK(a.changes == b.changes);
  CHECK(a.f_facility == b.f_facility);
  CHECK(a.f_energy == b.f_energy);
  CHECK(r1.engine->summary().gpu_energy_J == r2.engine->summary().gpu_energy_J);
  auto r3 = make_run(toml.substr(0, toml.find("seed")) + "seed = 100" + toml.substr(toml.find("seed") + 9));
  fleetwatt::test::RecordingSink c;
  r3.engine->attach(&c);
  r3.engine->run();
  CHECK(c.changes != a.changes);  // and a different seed really is a different run
}

TEST_CASE("a job naming an unknown class fails before the run, naming file, line and class",
          "[engine][bad-input]") {
  const std::string toml = kOneServer + "[[workload.jobs]]\nn_gpus = 1\nclass = \"resnet\"\n";
  try {
    (void)make_run(toml);
    FAIL("expected a ConfigError");
  } catch (const fleetwatt::jobs::ConfigError& e) {
    CHECK(std::string(e.what()).find("test.toml:12:1") != std::string::npos);
    CHECK(std::string(e.what()).find("unknown job class 'resnet'") != std::string::npos);
    CHECK(std::string(e.what()).find("vit") != std::string::npos);
  }
}
