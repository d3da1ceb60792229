// Tests of the genetic-programming symbolic regression: reproducibility, thread independence, recovery of
// simple laws, and a closed form recovered with default settings.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/models/fit/dataset.hpp"
#include "fleetwatt/models/fit/evaluation.hpp"
#include "fleetwatt/models/fit/symbolic_regression.hpp"

using namespace fleetwatt::models::fit;

namespace {
struct Data {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
};
Data sample(int n, std::uint64_t seed, double (*f)(double, double), double lo1, double hi1, double lo2,
            double hi2) {
  fleetwatt::jobs::Random rng(seed);
  Data d{Eigen::MatrixXd(n, 2), Eigen::VectorXd(n)};
  for (int i = 0; i < n; ++i) {
    d.x(i, 0) = rng.uniform(lo1, hi1);
    d.x(i, 1) = rng.uniform(lo2, hi2);
    d.y(i) = f(d.x(i, 0), d.x(i, 1));
  }
  return d;
}
}  // namespace

TEST_CASE("the same seed gives the same program whatever the thread count", "[sr]") {
  const Data d = sample(
      80, 1, [](double a, double b) { return a * b + a; }, -2, 2, -2, 2);
  GpConfig c;
  c.population = 300;
  c.generations = 8;
  c.seed = 11;
  c.threads = 1;
  const GpResult one = fit_symbolic(d.x, d.y, c);
  c.threads = 2;
  const GpResult two = fit_symbolic(d.x, d.y, c);
  CHECK(one.program == two.program);
  CHECK(one.best_mae_per_generation == two.best_mae_per_generation);
  c.seed = 12;
  CHECK_FALSE(fit_symbolic(d.x, d.y, c).program == one.program);
  CHECK(one.evaluations == 300u * static_cast<std::uint64_t>(one.generations_run));
}

TEST_CASE("gplearn's plain fitness finds an exact polynomial and stops on the criterion", "[sr]") {
  // y = x0 * x1 + x0 is three functions away from the terminals: a population of 1000 finds it exactly.
  const Data d = sample(
      60, 2, [](double a, double b) { return a * b + a; }, -2, 2, -2, 2);
  GpConfig c;
  c.population = 1000;
  c.generations = 30;
  c.linear_scaling = false;
  c.polish_constants = false;
  c.stopping_criteria = 1e-12;
  c.seed = 3;
  const GpResult r = fit_symbolic(d.x, d.y, c);
  CHECK(r.train_mae <= 1e-12);
  CHECK(r.generations_run < 30);
}

TEST_CASE("with default settings SR finds 3 ln(x1) + x2^2 to under 1 % test MRE", "[sr]") {
  // Noise-free data from a closed form of two features must be fitted to a test MRE under 1 %
  // with the default settings (population 2000, 50 generations, up to 4 weighted terms), through the same
  // standardised 8:1:1 pipeline as real records. It must hold for any draw of the data, not one lucky draw:
  // four independent draws here (20 out of 20 in the sweep recorded in docs/calibration.md, worst 0.24 %).
  for (std::uint64_t data_seed : {1u, 2u, 3u, 4u}) {
    const Data raw = sample(
        200, data_seed, [](double a, double b) { return 3.0 * std::log(a) + b * b; }, 1, 10, 1, 5);
    Dataset d;
    d.target = "y";
    d.features = {"x1", "x2"};
    d.x = raw.x;
    d.y = raw.y;
    EvaluationConfig cfg;
    cfg.repeats = 1;
    cfg.models = {"sr", "ols"};
    const Evaluation ev = evaluate_models(d, cfg);
    INFO("data seed " << data_seed << ": " << ev.scores("sr").example_formula);
    CHECK(ev.scores("sr").mre_mean < 1.0);
    // The linear baseline cannot represent it.
    CHECK(ev.scores("ols").mre_mean > 2.0);
  }
}

TEST_CASE("additive terms each get their own least-squares weight", "[sr]") {
  // y = 2 + 3 x0 - 5 sin(x1): the program x0 + sin(x1) has the right shape but the wrong weights. Its
  // scaled fitness with two terms is exact; plain linear scaling (one weight for the sum) cannot be.
  const Data d = sample(
      50, 7, [](double a, double b) { return 2.0 + 3.0 * a - 5.0 * std::sin(b); }, -2, 2, -2, 2);
  const Program p{Node{Op::add, 0, 0.0}, Node{Op::var, 0, 0.0}, Node{Op::sin, 0, 0.0}, Node{Op::var, 1, 0.0}};
  const auto two = evaluate_population({p}, d.x, d.y, 1, true, 2);
  const auto one = evaluate_population({p}, d.x, d.y, 1, true, 1);
  CHECK(two[0] < 1e-12);
  CHECK(one[0] > 0.1);
}
