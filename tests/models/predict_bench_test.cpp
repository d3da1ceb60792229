// The predictor's speed workload (what `fleetwatt bench` times as predict-100k): every job is one the
// default predictor accepts, on 10 GPU types, and the set is the same on every run. Speed itself is the
// benchmark's business (no timed assertions here).
#include <catch2/catch.hpp>
#include <set>

#include "fleetwatt/models/predict_bench.hpp"
#include "fleetwatt/models/predictor_registry.hpp"

using namespace fleetwatt;

TEST_CASE("the predict benchmark's jobs all predict, over 10 GPU types", "[models][bench]") {
  const auto w = models::predict_bench_workload(3000);
  REQUIRE(w.jobs.size() == 3000);
  REQUIRE(w.gpu_of.size() == 3000);
  CHECK(w.gpus.size() == 10);
  std::set<std::string> ids, models_seen;
  for (const auto& g : w.gpus) ids.insert(g.id);
  CHECK(ids.size() == 10);
  for (const auto& j : w.jobs) {
    models_seen.insert(j.meta.model);
    CHECK(j.meta.batch_size % j.n_gpus == 0);
  }
  CHECK(models_seen.size() == 10);
  // Jobs go round-robin over the GPUs: job i on GPU i mod 10.
  CHECK(w.gpu_of[0] == 0);
  CHECK(w.gpu_of[13] == 3);
  const auto predictor = models::PredictorRegistry::with_builtins().make(models::PredictorConfig{});
  const auto r = models::run_predict_bench(*predictor, w);  // throws if a job does not fit its GPU
  CHECK(r.jobs == 3000);
  CHECK(r.energy_J > 0.0);
  // Seeded: the same jobs every time.
  const auto again = models::predict_bench_workload(3000);
  CHECK(again.jobs[2999].meta.model == w.jobs[2999].meta.model);
  CHECK(again.jobs[2999].meta.batch_size == w.jobs[2999].meta.batch_size);
  CHECK(again.jobs[2999].meta.input_size == w.jobs[2999].meta.input_size);
}
