// The workload drawn as the run goes (job_stream.hpp) is build_workload's, job for job and in its order:
// the generator's arrivals from the same random stream, merged with explicit jobs and the warm-up's
// arrivals as the stable sort by submit time merges them.
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>

#include "fleetwatt/jobs/job_generator.hpp"
#include "fleetwatt/jobs/job_stream.hpp"
#include "fleetwatt/jobs/warmup.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"

using namespace fleetwatt::jobs;
using namespace fleetwatt::runs;

namespace {
std::vector<JobSpec> drain(JobSource& source) {
  std::vector<JobSpec> jobs;
  while (auto j = source.next()) jobs.push_back(std::move(*j));
  return jobs;
}

void check_same(const std::vector<JobSpec>& streamed, const std::vector<JobSpec>& built) {
  REQUIRE(streamed.size() == built.size());
  for (std::size_t i = 0; i < built.size(); ++i) {
    INFO("job " << i);
    CHECK(streamed[i].id == built[i].id);
    CHECK(streamed[i].submit_s == built[i].submit_s);  // exact: the same draws
    CHECK(streamed[i].n_gpus == built[i].n_gpus);
    CHECK(streamed[i].epochs == built[i].epochs);
    CHECK(streamed[i].job_class == built[i].job_class);
    CHECK(streamed[i].meta.dataset_samples == built[i].meta.dataset_samples);
    CHECK(streamed[i].phases.has_value() == built[i].phases.has_value());
  }
}
}  // namespace

TEST_CASE("the arrival stream drained is generate_jobs", "[jobs][stream]") {
  const Scenario s =
      load_scenario(std::filesystem::path(FLEETWATT_SOURCE_DIR) / "examples/scenarios/day-fleet.toml");
  ArrivalStream arrivals(*s.workload.generator, s.seed, 7);
  std::vector<JobSpec> streamed;
  while (auto j = arrivals.next()) streamed.push_back(std::move(*j));
  CHECK_FALSE(arrivals.next());  // stays exhausted
  check_same(streamed, generate_jobs(*s.workload.generator, s.seed, 7));
  CHECK(streamed.size() > 3000);  // 152/h over a day: about 3,650
}

TEST_CASE("the scenario's job stream is build_workload's workload in its order", "[jobs][stream]") {
  SECTION("the default day with its 13 h warm-up") {
    Scenario s =
        load_scenario(std::filesystem::path(FLEETWATT_SOURCE_DIR) / "examples/scenarios/day-fleet.toml");
    s.workload.warmup_s = 46800.0;
    REQUIRE(streamable(s.workload));
    ScenarioJobStream stream(s.workload, s.seed);
    const auto built = build_workload(s.workload, s.seed);
    CHECK(stream.size() == built.size());
    const auto streamed = drain(stream);
    check_same(streamed, built);
    // The warm-up's arrivals come first (submit < 0) with ids after the window's.
    REQUIRE(streamed.front().submit_s < 0.0);
    CHECK(streamed.front().id > streamed.back().id);
  }
  SECTION("explicit jobs among generated ones, ties included") {
    // Explicit jobs out of order and at the same instants (0 s twice, 600 s): the stable sort keeps them in
    // list order, before generated jobs of the same instant.
    const std::string text = R"(
seed = 11
[fleet]
nodes = 4
gpus_per_node = 4
[workload]
horizon_s = 7200
warmup_s = 3600
[[workload.jobs]]
id = 40
submit_s = 600
n_gpus = 2
epochs = 1
class = "vit"
[[workload.jobs]]
id = 41
submit_s = 0
n_gpus = 1
epochs = 2
class = "bert"
[[workload.jobs]]
id = 42
submit_s = 0
n_gpus = 4
epochs = 3
class = "vit"
[workload.generator]
rate_per_hour = 30
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 2]
epochs = [1, 5]
)";
    const Scenario s = parse_scenario(text, "s.toml");
    ScenarioJobStream stream(s.workload, s.seed);
    const auto built = build_workload(s.workload, s.seed);
    const auto streamed = drain(stream);
    check_same(streamed, built);
    CHECK(stream.size() == built.size());
    // Generated ids start after the largest explicit id (43...), the warm-up's after the window's.
    std::size_t explicit_jobs = 0;
    for (const auto& j : streamed) explicit_jobs += j.id >= 40 && j.id <= 42;
    CHECK(explicit_jobs == 3);
    // The explicit jobs handed over (a run taking its jobs: the workload's own list is left empty) stream
    // the same.
    Scenario taken = s;
    std::vector<JobSpec> handed = std::move(taken.workload.jobs);
    taken.workload.jobs.clear();
    REQUIRE(handed.size() == 3);
    ScenarioJobStream from_handed(taken.workload, std::move(handed), s.seed);
    check_same(drain(from_handed), built);
  }
}

TEST_CASE("a raised stop ends the stream's counting and its warm-up", "[jobs][stream][signals]") {
  Scenario s =
      load_scenario(std::filesystem::path(FLEETWATT_SOURCE_DIR) / "examples/scenarios/day-fleet.toml");
  // 10^6 arrivals an hour over a day: 24 M draws to count, polled every 2^16.
  s.workload.generator->mean_rate_per_s = 1e6 / 3600.0;
  s.workload.warmup_s = 0.0;
  std::atomic<bool> stop{true};
  CHECK_THROWS_AS(ScenarioJobStream(s.workload, s.seed, &stop), fleetwatt::core::Interrupted);
  // The warm-up's own loops poll the same flag: a continued one per 2^16 draws, a periodic one per copy.
  s.workload.generator->mean_rate_per_s = 100.0 / 3600.0;
  s.workload.warmup_s = 1e9;
  CHECK_THROWS_AS(generate_warmup_jobs(*s.workload.generator, s.seed, 1e9, 1, &stop),
                  fleetwatt::core::Interrupted);
  const std::vector<JobSpec> window = generate_jobs(*s.workload.generator, s.seed, 1);
  REQUIRE_FALSE(window.empty());
  CHECK_THROWS_AS(periodic_warmup_jobs(window, 86400.0, 86400.0 * 1000, 1, &stop),
                  fleetwatt::core::Interrupted);
  // Not raised: the same calls finish (a small periodic warm-up: 2 copies of the day).
  stop = false;
  CHECK(periodic_warmup_jobs(window, 86400.0, 2 * 86400.0, 1, &stop).size() == 2 * window.size());
}
