// Google Benchmark of symbolic-regression population evaluation: programs per second (items) and
// node-row evaluations per second, on one and two threads, for populations built as gplearn does.
#include <benchmark/benchmark.h>

#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/models/fit/symbolic_regression.hpp"

namespace {

using namespace fleetwatt::models::fit;

void bm_evaluate_population(benchmark::State& state) {
  const auto rows = static_cast<Eigen::Index>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  const int nf = 5;
  fleetwatt::jobs::Random rng(1);
  Eigen::MatrixXd x(rows, nf);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.uniform(-2, 2);
  const Eigen::VectorXd y = x.col(0).array().square() + x.col(1).array();
  GpConfig cfg;
  std::vector<Program> pop;
  std::size_t nodes = 0;
  for (int i = 0; i < 2000; ++i) {
    pop.push_back(random_program(cfg, nf, static_cast<std::uint64_t>(i)));
    nodes += pop.back().size();
  }
  for (auto _ : state) benchmark::DoNotOptimize(evaluate_population(pop, x, y, threads, true));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(pop.size()));
  state.counters["node_rows/s"] = benchmark::Counter(
      double(nodes) * double(rows) * double(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(bm_evaluate_population)
    ->Args({200, 1})
    ->Args({200, 2})
    ->Args({2000, 1})
    ->Args({2000, 2})
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
