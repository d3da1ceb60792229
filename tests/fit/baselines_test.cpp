// Tests of the baseline regressors against closed-form solutions and simple shapes.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/models/fit/baselines.hpp"

using namespace fleetwatt::models::fit;

TEST_CASE("OLS recovers an exact linear law", "[baselines]") {
  fleetwatt::jobs::Random rng(1);
  Eigen::MatrixXd x(30, 2);
  Eigen::VectorXd y(30);
  for (int i = 0; i < 30; ++i) {
    x(i, 0) = rng.uniform(-2, 2);
    x(i, 1) = rng.uniform(-2, 2);
    y(i) = 2 * x(i, 0) - 3 * x(i, 1) + 5;
  }
  OlsRegressor m;
  m.fit(x, y);
  Eigen::MatrixXd q(1, 2);
  q << 1.0, 1.0;
  CHECK(m.predict(q)(0) == Approx(4.0));
}

TEST_CASE("the penalty grid spans 1e-4 to 10 in half decades", "[baselines]") {
  const auto g = penalty_grid();
  REQUIRE(g.size() == 11);
  CHECK(g.front() == Approx(1e-4));
  CHECK(g.back() == Approx(10.0));
}

TEST_CASE("ridge and lasso match their one-feature closed forms", "[baselines]") {
  Eigen::MatrixXd x(4, 1);
  x << -1.5, -0.5, 0.5, 1.5;  // centred
  Eigen::VectorXd y(4);
  y << 1, 2, 4, 5;                                               // mean 3
  const double sxy = -1.5 * -2 + -0.5 * -1 + 0.5 * 1 + 1.5 * 2;  // 7
  const double sxx = 2.25 * 2 + 0.25 * 2;                        // 5
  PenalisedRegressor ridge(PenalisedRegressor::Kind::ridge);
  ridge.fit_alpha(x, y, 1.0);
  // Ridge: w = sxy / (sxx + alpha) on centred data.
  Eigen::MatrixXd one(1, 1);
  one << 1.0;
  CHECK(ridge.predict(one)(0) == Approx(3.0 + 7.0 / 6.0));
  PenalisedRegressor lasso(PenalisedRegressor::Kind::lasso);
  lasso.fit_alpha(x, y, 0.5);
  // Lasso (scikit-learn's objective): w = S(sxy / n, alpha) / (sxx / n) = (1.75 - 0.5) / 1.25 = 1.
  CHECK(lasso.predict(one)(0) == Approx(3.0 + 1.0));
  lasso.fit_alpha(x, y, 5.0);  // alpha above |sxy / n|: the weight is exactly zero
  CHECK(lasso.predict(one)(0) == Approx(3.0));
  (void)sxx;
  (void)sxy;
}

TEST_CASE("gradient-boosted trees learn a step and the MLP a smooth curve", "[baselines]") {
  fleetwatt::jobs::Random rng(2);
  const int n = 120;
  Eigen::MatrixXd x(n, 1);
  Eigen::VectorXd step(n), curve(n);
  for (int i = 0; i < n; ++i) {
    x(i, 0) = rng.uniform(-2, 2);
    step(i) = x(i, 0) > 0.3 ? 10.0 : 2.0;
    curve(i) = std::sin(x(i, 0));
  }
  GbtRegressor gbt(0);
  gbt.fit(x, step);
  Eigen::MatrixXd q(2, 1);
  q << -1.0, 1.0;
  const auto p = gbt.predict(q);
  CHECK(p(0) == Approx(2.0).margin(0.3));
  CHECK(p(1) == Approx(10.0).margin(0.3));
  CHECK_FALSE(gbt.chosen().empty());
  MlpRegressor mlp(0);
  mlp.fit(x, curve);
  const auto pm = mlp.predict(q);
  CHECK(pm(0) == Approx(std::sin(-1.0)).margin(0.05));
  CHECK(pm(1) == Approx(std::sin(1.0)).margin(0.05));
}

TEST_CASE("cross-validation prefers the penalty that generalises", "[baselines]") {
  // Pure noise target: a heavy penalty predicts the mean, which cross-validates best.
  fleetwatt::jobs::Random rng(3);
  Eigen::MatrixXd x(40, 6);
  Eigen::VectorXd y(40);
  for (int i = 0; i < 40; ++i) {
    for (int j = 0; j < 6; ++j) x(i, j) = rng.uniform(-1, 1);
    y(i) = rng.uniform(-1, 1);
  }
  PenalisedRegressor lasso(PenalisedRegressor::Kind::lasso);
  lasso.fit(x, y);
  CHECK_THAT(lasso.chosen(), Catch::Contains("alpha="));
  CHECK(lasso.chosen() != "alpha=0.0001");
}
