// The hardware-efficiency power law, its operation decompositions, the paper's presets, the
// Levenberg-Marquardt fit and the OLS energy regression.
#include "fleetwatt/models/fit/power_law_fit.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "fleetwatt/jobs/random.hpp"

using namespace fleetwatt::models;

TEST_CASE("The law reaches half its plateau where k c^alpha = ln 2", "[models][power_law]") {
  const PowerLaw law{68.22, 8.50, 0.70};
  const double c_half_gflop = std::pow(std::log(2.0) / 8.50, 1.0 / 0.70);
  CHECK(law.efficiency(c_half_gflop * 1e9) == Approx(0.6822 / 2).epsilon(1e-12));
  CHECK(law.efficiency(1e15) == Approx(0.6822).epsilon(1e-9));
  // t(c) = c / (v_max eta(c)).
  const double c = 3e9, vmax = 19.5e12;
  CHECK(law.duration_s(c, vmax) == Approx(c / (vmax * 0.6822 * (1 - std::exp(-8.50 * std::pow(3.0, 0.70))))));
}

TEST_CASE("Under the GFLOP reading, the alpha = 1 elementwise laws give a kernel-launch-sized floor",
          "[models][power_law]") {
  // With alpha = 1 and k c << 1, t = c / (v eta_max k c / 1e9) = 1e9 / (v eta_max k): constant. For the
  // A100 LSTM activations (0.10 %, 12164.49) at FP32 peak 19.5 TFLOP/s: 1e9 / (19.5e12 * 0.001 * 12164.49)
  // = 4.22 us (reached while k c << 1, e.g. c = 100 FLOPs), the scale of one CUDA kernel launch; a TFLOP
  // reading would give 4.2 ms, an MFLOP one 4.2 ns.
  const PowerLaw act = power_law_preset("a100-lstm").laws.at(OpKind::activations);
  CHECK(act.duration_s(100.0, 19.5e12) == Approx(1e9 / (19.5e12 * 0.001 * 12164.49)).epsilon(1e-3));
  CHECK(act.duration_s(100.0, 19.5e12) == Approx(4.216e-6).epsilon(2e-3));
}

TEST_CASE("The paper's worked energy example is reproduced from its durations", "[models][power_law]") {
  // e = 23.8962 + 0.1089 t_proj + 0.4743 t_score - 0.1029 t_mul (J, ms).
  // Model A (19.4, 0.76, 0.64) -> about 26.30 J; Model B (63.6, 1.23, 1.12) -> about 31.28 J
  // (the formula gives 31.29: the paper rounds).
  CHECK(paper_transformer_energy_J(19.4, 0.76, 0.64) == Approx(26.30).margin(0.01));
  CHECK(paper_transformer_energy_J(63.6, 1.23, 1.12) == Approx(31.28).margin(0.015));
}

TEST_CASE("The Transformer decomposition counts each operation's FLOPs", "[models][power_law]") {
  TransformerShape s;
  s.layers = 2, s.d_model = 512, s.heads = 8, s.seq_len = 128, s.vocab = 0;
  const auto ops = transformer_operations(s, 4);
  const double B = 4, L = 128, d = 512, h = 8;
  double proj = 0, score = 0, softmax = 0, ffn = 0;
  for (const auto& op : ops) {
    CHECK(op.repeats == 2.0);
    if (op.kind == OpKind::projection) proj += op.flops;
    if (op.kind == OpKind::score) score += op.flops;
    if (op.kind == OpKind::softmax) softmax += op.flops;
    if (op.kind == OpKind::feed_forward) ffn += op.flops;
  }
  CHECK(proj == 3 * 2 * B * L * d * d);
  CHECK(score == 2 * B * L * L * d);
  CHECK(softmax == B * h * L * L);
  CHECK(ffn == 2 * (2 * B * L * d * 4 * d));
  // Matrix products of the decomposition match the zoo's MAC count of the same stack (x2 FLOP/MAC).
  double gemm = 0;
  for (const auto& op : ops)
    if (op.kind == OpKind::projection || op.kind == OpKind::score || op.kind == OpKind::mul ||
        op.kind == OpKind::output || op.kind == OpKind::feed_forward)
      gemm += op.flops * op.repeats;
  CHECK(gemm == Approx(2 * B * transformer(s).forward_macs).epsilon(1e-12));
}

TEST_CASE("The LSTM decomposition follows the paper's per-step counts", "[models][power_law]") {
  // Gates 2 B (h 4h) + 2 B (d 4h); activations 4 B h; cell and hidden updates 2 B h; per step and layer.
  RecurrentShape s;
  s.layers = 1, s.input_size = 300, s.hidden_size = 256, s.seq_len = 35;
  const auto ops = recurrent_operations(s, 20);
  REQUIRE(ops.size() == 4);
  CHECK(ops[0].flops == 2.0 * 20 * (256 * 4 * 256) + 2.0 * 20 * (300 * 4 * 256));
  CHECK(ops[1].flops == 4.0 * 20 * 256);
  CHECK(ops[2].flops == 2.0 * 20 * 256);
  CHECK(ops[3].flops == 2.0 * 20 * 256);
  CHECK(ops[0].repeats == 35.0);
}

TEST_CASE("The paper's presets are available by id", "[models][power_law]") {
  const auto& a100 = power_law_preset("a100-transformer");
  CHECK(a100.laws.at(OpKind::mul).eta_max_percent == 65.79);
  CHECK(a100.laws.at(OpKind::projection).alpha == 0.70);
  CHECK(power_law_preset("rtx2080ti-transformer").laws.at(OpKind::score).k == 14.67);
  CHECK(power_law_preset("a100-lstm").laws.at(OpKind::gates).eta_max_percent == 67.48);
  CHECK(power_law_preset("worked-example").laws.at(OpKind::output).alpha == 0.794);
  CHECK_THROWS_WITH(power_law_preset("h100"), Catch::Contains("a100-lstm"));
}

namespace {
/// Samples (FLOPs, seconds) of `law` from 1 MFLOP to 100 GFLOP, with relative noise of `noise`.
void sample(const PowerLaw& law, double vmax, double noise, std::vector<double>& c, std::vector<double>& t) {
  fleetwatt::jobs::Random rng(7);
  for (double e = 6.0; e <= 11.0; e += 0.25) {
    const double flops = std::pow(10.0, e);
    c.push_back(flops);
    t.push_back(law.duration_s(flops, vmax) * (1.0 + noise * rng.uniform(-1.0, 1.0)));
  }
}
}  // namespace

TEST_CASE("Levenberg-Marquardt recovers a law from its own samples", "[models][power_law]") {
  const PowerLaw truth{65.79, 9.25, 0.81};
  std::vector<double> c, t;
  sample(truth, 19.5e12, 0.0, c, t);
  const PowerLawFit fit = fit_power_law(c, t, 19.5e12);
  CHECK(fit.law.eta_max_percent == Approx(65.79).epsilon(1e-6));
  CHECK(fit.law.k == Approx(9.25).epsilon(1e-6));
  CHECK(fit.law.alpha == Approx(0.81).epsilon(1e-6));
  CHECK(fit.rmse_percent < 1e-6);

  // With +-2 % timing noise the parameters stay within a few percent.
  std::vector<double> cn, tn;
  sample(truth, 19.5e12, 0.02, cn, tn);
  const PowerLawFit noisy = fit_power_law(cn, tn, 19.5e12);
  CHECK(noisy.law.eta_max_percent == Approx(65.79).epsilon(0.03));
  CHECK(noisy.law.alpha == Approx(0.81).epsilon(0.08));
}

TEST_CASE("A fit that cannot describe the samples fails with a clear message", "[models][power_law]") {
  CHECK_THROWS_WITH(fit_power_law({1e9, 2e9}, {1e-3, 2e-3}, 19.5e12), Catch::Contains("at least 4"));
  CHECK_THROWS_WITH(fit_power_law({1e9, 2e9, 3e9, 4e9}, {1e-3, -2e-3, 1e-3, 1e-3}, 19.5e12),
                    Catch::Contains("sample 2"));
  // Efficiency falling with size is not a saturation curve.
  std::vector<double> c, t;
  for (double e = 6.0; e <= 11.0; e += 0.5) {
    const double flops = std::pow(10.0, e);
    c.push_back(flops);
    t.push_back(flops / (19.5e12 * 0.5 * std::pow(flops / 1e6, -0.3)));
  }
  CHECK_THROWS_AS(fit_power_law(c, t, 19.5e12), FitError);
}

TEST_CASE("OLS energy regression matches the closed-form simple regression", "[models][power_law]") {
  // y = a + b x: b = Sxy / Sxx, a = ybar - b xbar, se(b) = sqrt(s^2 / Sxx), s^2 = SSE / (n - 2).
  const std::vector<double> x{1, 2, 3, 4, 5, 6}, y{25.1, 25.9, 27.2, 27.8, 29.1, 30.0};
  double xbar = 3.5, ybar = 0, sxy = 0, sxx = 0;
  for (double v : y) ybar += v / 6;
  for (int i = 0; i < 6; ++i) sxy += (x[i] - xbar) * (y[i] - ybar), sxx += (x[i] - xbar) * (x[i] - xbar);
  const double b = sxy / sxx, a = ybar - b * xbar;
  double sse = 0, sst = 0;
  for (int i = 0; i < 6; ++i) sse += std::pow(y[i] - a - b * x[i], 2), sst += std::pow(y[i] - ybar, 2);
  const double se_b = std::sqrt(sse / 4 / sxx);
  std::vector<std::vector<double>> rows;
  for (double v : x) rows.push_back({v});
  const EnergyRegression r = fit_energy_regression(rows, y, {"t"});
  CHECK(r.coef[0] == Approx(a));
  CHECK(r.coef[1] == Approx(b));
  CHECK(r.std_err[1] == Approx(se_b));
  CHECK(r.r_squared == Approx(1 - sse / sst));
  // 95 % interval with Student's t, 4 degrees of freedom: t_0.975 = 2.776445.
  CHECK(r.ci_high[1] - r.coef[1] == Approx(2.776445 * se_b).epsilon(1e-5));
  CHECK(r.table().find("[0.025") != std::string::npos);
}

TEST_CASE("OLS recovers the paper's coefficients from noiseless durations", "[models][power_law]") {
  std::vector<std::vector<double>> rows;
  std::vector<double> e;
  fleetwatt::jobs::Random rng(3);
  for (int i = 0; i < 12; ++i) {
    const double p = rng.uniform(5, 80), s = rng.uniform(0.2, 2), m = rng.uniform(0.2, 2);
    rows.push_back({p, s, m});
    e.push_back(paper_transformer_energy_J(p, s, m));
  }
  const EnergyRegression r = fit_energy_regression(rows, e, {"projection", "score", "mul"});
  CHECK(r.coef[0] == Approx(23.8962).epsilon(1e-9));
  CHECK(r.coef[1] == Approx(0.1089).epsilon(1e-9));
  CHECK(r.coef[2] == Approx(0.4743).epsilon(1e-9));
  CHECK(r.coef[3] == Approx(-0.1029).epsilon(1e-9));
  CHECK(r.predict({19.4, 0.76, 0.64}) == Approx(paper_transformer_energy_J(19.4, 0.76, 0.64)));
  CHECK_THROWS_AS(fit_energy_regression({{1, 2}, {2, 4}, {3, 6}, {4, 8}}, {1, 2, 3, 4}, {"a", "b"}),
                  FitError);
}
