// `fleetwatt powerlaw`: the fits recover known parameters from noise-free samples written by hand here.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <cmath>

#include "test_support.hpp"

using namespace fleetwatt::test;

TEST_CASE("powerlaw fit recovers the paper's A100 mul law from exact timings", "[cli][powerlaw]") {
  // eta(c) = 0.6579 (1 - exp(-9.25 c^0.81)), c in GFLOP; t = c_FLOP / (v_max eta) with v_max = 19.5 TFLOP/s
  // (A100 FP32).
  TempDir dir;
  std::string csv = "op,flops,seconds\n";
  for (double c = 1e6; c <= 1e11; c *= 1.6) {
    const double eta = 0.6579 * (1 - std::exp(-9.25 * std::pow(c / 1e9, 0.81)));
    csv += fmt::format("mul,{:.17g},{:.17g}\n", c, c / (19.5e12 * eta));
  }
  auto file = dir.write("mul.csv", csv);
  auto r =
      run_command(fleetwatt_binary().string() + " powerlaw fit --json --gpu a100-sxm-80gb " + file.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "eta_max_percent") == Approx(65.79).epsilon(0.01));
  CHECK(json_number(r.out, "k") == Approx(9.25).epsilon(0.01));
  CHECK(json_number(r.out, "alpha") == Approx(0.81).epsilon(0.01));
  auto table =
      run_command(fleetwatt_binary().string() + " powerlaw fit --gpu a100-sxm-80gb " + file.string());
  CHECK(table.out.find("eta_max") != std::string::npos);
}

TEST_CASE("powerlaw energy recovers the paper's Transformer energy coefficients", "[cli][powerlaw]") {
  // e = 23.8962 + 0.1089 t_proj + 0.4743 t_score - 0.1029 t_mul (J, ms), on durations that vary
  // independently.
  TempDir dir;
  std::string csv = "energy_J,t_projection,t_score,t_mul\n";
  for (int i = 0; i < 30; ++i) {
    const double a = 5 + 3 * i, b = 0.5 + std::fmod(7.3 * i, 4.0), c = 0.4 + std::fmod(3.1 * i, 2.5);
    csv += fmt::format("{:.17g},{},{},{}\n", 23.8962 + 0.1089 * a + 0.4743 * b - 0.1029 * c, a, b, c);
  }
  auto r = run_command(fleetwatt_binary().string() + " powerlaw energy --json " +
                       dir.write("runs.csv", csv).string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "r_squared") == Approx(1.0));
  CHECK(json_number(r.out, "coef", r.out.find("\"const\"")) == Approx(23.8962));
  CHECK(json_number(r.out, "coef", r.out.find("\"t_score\"")) == Approx(0.4743));
  CHECK(json_number(r.out, "coef", r.out.find("\"t_mul\"")) == Approx(-0.1029));
}

TEST_CASE("powerlaw refuses bad samples with a located message", "[cli][powerlaw][bad-input]") {
  TempDir dir;
  auto r = run_command(fleetwatt_binary().string() + " powerlaw fit " +
                       dir.write("bad.csv", "flops,seconds\n1e9,fast\n").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bad.csv:2:5: seconds: not a number: 'fast'") != std::string::npos);
}
