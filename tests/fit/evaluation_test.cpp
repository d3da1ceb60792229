// Tests of the evaluation protocol: split sizes, error measures, Table 3 and Table 4 layouts.
#include <catch2/catch.hpp>

#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/models/fit/evaluation.hpp"

using namespace fleetwatt::models::fit;

TEST_CASE("8:1:1 splits have the paper's proportions", "[evaluation]") {
  const auto s = split_sizes(219);
  CHECK(s.validation == 22);
  CHECK(s.test == 22);
  CHECK(s.train == 175);
  const auto small = split_sizes(10);
  CHECK(small.train == 8);
  CHECK(small.validation == 1);
  CHECK(small.test == 1);
}

TEST_CASE("MSE and MRE are computed as defined", "[evaluation]") {
  Eigen::VectorXd p(3), t(3);
  p << 110, 90, 5;
  t << 100, 100, 0;
  CHECK(mse(p, t) == Approx((100 + 100 + 25) / 3.0));
  // The zero truth is skipped: (10 % + 10 %) / 2.
  CHECK(mre_percent(p, t) == Approx(10.0));
}

TEST_CASE("a linear law is evaluated over repeated splits and transferred across groups", "[evaluation]") {
  fleetwatt::jobs::Random rng(1);
  Dataset d;
  d.target = "y";
  d.features = {"a", "b"};
  const int n = 60;
  d.x.resize(n, 2);
  d.y.resize(n);
  for (int i = 0; i < n; ++i) {
    d.x(i, 0) = rng.uniform(1, 5);
    d.x(i, 1) = rng.uniform(1, 5);
    d.y(i) = 10 + 2 * d.x(i, 0) + 3 * d.x(i, 1);
    d.groups.push_back(i % 2 ? "odd" : "even");
  }
  EvaluationConfig cfg;
  cfg.repeats = 3;
  cfg.models = {"ols", "ridge", "lasso"};
  const Evaluation ev = evaluate_models(d, cfg);
  CHECK(ev.n_test == 6);
  // Exact law: OLS has no error at all; the penalised fits a little at most.
  CHECK(ev.scores("ols").mre_mean < 1e-9);
  CHECK(ev.scores("ridge").mre_mean < 1.0);
  CHECK(ev.scores("ols").mse.size() == 3);
  const auto cells = transfer_table(d, cfg);
  REQUIRE(cells.size() == 2 * 3);  // even->odd and odd->even, three models each
  CHECK(cells[0].train_group == "even");
  CHECK(cells[0].test_group == "odd");
  CHECK(cells[0].mre < 1e-9);
  const std::string t3 = format_table3({ev});
  CHECK_THAT(t3, Catch::Contains("ols") && Catch::Contains("MRE %"));
  CHECK_THAT(table3_csv({ev}), Catch::Contains("y,ols,"));
  CHECK_THAT(format_table4("y", cells), Catch::Contains("even -> odd"));
  CHECK_THAT(table4_csv("y", cells), Catch::StartsWith("target,train_group,test_group,model"));
}
