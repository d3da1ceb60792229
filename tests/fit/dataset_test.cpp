// Tests of data sets, the z-score scaler, Pearson correlation and the KSG mutual-information estimator
// used for feature selection, and the bad-input messages of make_dataset.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/jobs/random.hpp"
#include "fleetwatt/models/fit/dataset.hpp"

using namespace fleetwatt::models::fit;

namespace {
double gauss(fleetwatt::jobs::Random& rng) {
  const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}
}  // namespace

TEST_CASE("the scaler standardises each column with the population standard deviation", "[dataset]") {
  Eigen::MatrixXd x(4, 2);
  x << 1, 5, 2, 5, 3, 5, 4, 5;
  const Scaler s = Scaler::fit(x);
  CHECK(s.mean(0) == Approx(2.5));
  // Population std of 1..4 = sqrt(1.25).
  CHECK(s.std(0) == Approx(std::sqrt(1.25)));
  // A constant column keeps std 1 and maps to zero.
  CHECK(s.std(1) == 1.0);
  const Eigen::MatrixXd z = s.transform(x);
  CHECK(z(0, 0) == Approx(-1.5 / std::sqrt(1.25)));
  CHECK(z(3, 1) == 0.0);
}

TEST_CASE("Pearson correlation is +1, -1 and 0 where it must be", "[dataset]") {
  Eigen::VectorXd a(5), b(5), c(5);
  a << 1, 2, 3, 4, 5;
  b << 10, 8, 6, 4, 2;
  c << 2, 1, 0, 1, 2;  // symmetric about a's mean
  CHECK(pearson(a, 3.0 * a) == Approx(1.0));
  CHECK(pearson(a, b) == Approx(-1.0));
  CHECK(pearson(a, c) == Approx(0.0).margin(1e-12));
}

TEST_CASE("KSG mutual information matches the Gaussian closed form", "[dataset]") {
  // For a bivariate normal with correlation rho, I = -1/2 ln(1 - rho^2): 0.830 nats at rho = 0.9.
  fleetwatt::jobs::Random rng(5);
  const int n = 1000;
  Eigen::VectorXd x(n), y(n), z(n);
  for (int i = 0; i < n; ++i) {
    x(i) = gauss(rng);
    y(i) = 0.9 * x(i) + std::sqrt(1 - 0.81) * gauss(rng);
    z(i) = gauss(rng);
  }
  // The sample's own correlation stands in for rho (sampling noise moves it by about +-0.01).
  const double r = pearson(x, y);
  CHECK(r == Approx(0.9).margin(0.03));
  CHECK(mutual_information_knn(x, y, 5, 0) == Approx(-0.5 * std::log(1 - r * r)).margin(0.05));
  CHECK(mutual_information_knn(x, z, 5, 0) < 0.05);
  // Same seed, same value.
  CHECK(mutual_information_knn(x, y, 5, 3) == mutual_information_knn(x, y, 5, 3));
}

TEST_CASE("feature selection keeps a nonlinear dependence Pearson misses and drops noise", "[dataset]") {
  fleetwatt::jobs::Random rng(9);
  Dataset d;
  d.target = "y";
  d.features = {"u", "noise"};
  const int n = 400;
  d.x.resize(n, 2);
  d.y.resize(n);
  for (int i = 0; i < n; ++i) {
    d.x(i, 0) = rng.uniform(-1, 1);
    d.x(i, 1) = rng.uniform(-1, 1);
    d.y(i) = d.x(i, 0) * d.x(i, 0);
  }
  const auto scores = score_features(d, 0.3);
  CHECK(std::abs(scores[0].pearson) < 0.3);  // y = u^2 on a symmetric range is uncorrelated with u
  CHECK(scores[0].mutual_info > 0.3);
  CHECK(scores[0].selected);
  CHECK_FALSE(scores[1].selected);
  const Dataset s = select_features(d, scores);
  CHECK(s.features == std::vector<std::string>{"u"});
  CHECK(s.x.cols() == 1);
}

TEST_CASE("make_dataset uses the metadata columns, skips constant ones and names bad input", "[dataset]") {
  std::string csv = "model,params,flops,batch_size,gpus,peak_W\n";
  for (int i = 0; i < 12; ++i)
    csv += "m," + std::to_string(1e6 * (i + 1)) + "," + std::to_string(2e9 * (i % 3 + 1)) + ",32,4," +
           std::to_string(100 + i) + "\n";
  const auto t = RecordTable::parse(csv, "r.csv");
  const Dataset d = make_dataset(t, "peak_W", {});
  CHECK(d.features == std::vector<std::string>{"params", "flops"});
  CHECK(d.skipped == std::vector<std::string>{"batch_size (constant)", "gpus (constant)"});
  CHECK(d.y(11) == 111.0);
  CHECK_THROWS_WITH(make_dataset(t, "peak_W", {"params", "gpus"}),
                    Catch::Contains("gpus") && Catch::Contains("constant"));
  CHECK_THROWS_WITH(make_dataset(t, "peak_W", {"params", "nope"}), Catch::Contains("no such column"));
  CHECK_THROWS_WITH(make_dataset(t, "peak_W", {"model"}),
                    Catch::Contains("r.csv:2:1") && Catch::Contains("'m'"));
  CHECK_THROWS_WITH(make_dataset(t, "peak_W", {}, {}, 20),
                    Catch::Contains("12 rows") && Catch::Contains("8:1:1"));
  CHECK_THROWS_WITH(make_dataset(t, "energy", {}), Catch::Contains("no such column"));
}
