// Google Benchmark of the default predictor's speed (requirement: predicting 100,000 jobs on 10 GPU types
// stays under 2 s): the workload `fleetwatt bench` reports as predict-100k, predictions per second (items)
// and seconds per 100,000-job pass.
#include <benchmark/benchmark.h>

#include "fleetwatt/models/predict_bench.hpp"
#include "fleetwatt/models/predictor_registry.hpp"

namespace {

void bm_predict_100k(benchmark::State& state) {
  // Built as a scenario builds its predictor: the registry's datasheet with the default [predictor] section.
  const auto predictor =
      fleetwatt::models::PredictorRegistry::with_builtins().make(fleetwatt::models::PredictorConfig{});
  const auto w = fleetwatt::models::predict_bench_workload(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    const auto r = fleetwatt::models::run_predict_bench(*predictor, w);
    benchmark::DoNotOptimize(r.energy_J);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

BENCHMARK(bm_predict_100k)->Arg(100'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
