// Validation of the default (datasheet) predictor on the measurements in ../shared/data, leaving one GPU out:
// for each GPU, its constants are refitted on every other GPU's rows and its own rows are predicted. The
// errors and the band's coverage are guarded a little above (within 20 % of) the figures docs/predictors.md
// reports; the refit on all rows must reproduce the built-in constants (models/data/predictor_fit.toml).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <tuple>

#include "fleetwatt/models/few_shot.hpp"
#include "fleetwatt/models/fit/predictor_fit.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"
#include "test_support.hpp"

using namespace fleetwatt::models;

namespace {

struct Errors {
  double time = 0.0, power = 0.0;
  int n = 0, np = 0;
};

/// The measurements and one leave-one-GPU-out run, shared by the test cases (the fits take ~20 s).
struct Validation {
  MeasurementSet set;
  std::vector<PreparedRow> rows;
  FitReport report;
  std::map<std::string, Errors> per_gpu;
};

const Validation& validation(const std::filesystem::path& data) {
  static const Validation v = [&] {
    Validation out;
    out.set = read_measurements(data);
    out.rows = prepare_rows(out.set);
    FitOptions options;
    options.gemm_samples = &out.set.gemms;
    out.report = fit_and_validate(out.rows, 0.8, options);
    for (const auto& p : out.report.left_out) {
      const Measurement& m = *p.row->row;
      Errors& e = out.per_gpu[p.row->gpu.id];
      const double measured = m.time_s(), predicted = p.prediction.time_s(m);
      e.time += std::abs(predicted - measured) / measured, ++e.n;
      if (m.avg_power_W > 0.0)
        e.power += std::abs(p.prediction.avg_power_W - m.avg_power_W) / m.avg_power_W, ++e.np;
    }
    return out;
  }();
  return v;
}

/// The rows compared with their leave-one-GPU-out predictions, as `fleetwatt validate --few-shot 0` makes it.
ValidationReport left_out_comparison(const Validation& v) {
  std::map<const Measurement*, Prediction> left_out;
  for (const auto& p : v.report.left_out)
    left_out[p.row->row] = {p.prediction.epoch_s, p.prediction.step_s, p.prediction.avg_power_W,
                            p.prediction.band, p.prediction.split};
  return validate_measurements(v.set, [&](const Measurement& m) { return left_out.at(&m); });
}

}  // namespace

TEST_CASE("Leave-one-GPU-out errors stay at the figures docs/predictors.md reports", "[models][validation]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const Validation& v = validation(data);
  std::string report = "leave-one-GPU-out mean relative error (time, power)\n";
  for (const auto& [g, e] : v.per_gpu)
    report += fmt::format("  {:<16} n={:<4} time {:5.1f} %  power {}\n", g, e.n, 100 * e.time / e.n,
                          e.np ? fmt::format("{:5.1f} %", 100 * e.power / e.np) : "-");
  WARN(report);
  // docs/predictors.md, "How good is the default predictor": time and power MRE per GPU with at least 10
  // rows. Guards sit 20 % above those figures.
  const std::map<std::string, std::pair<double, double>> reported{
      {"a100-pcie-40gb", {0.171, 0}}, {"a40", {0.524, 0.100}},
      {"gtx750ti", {0.774, 0.450}},   {"l4", {0.107, 0}},
      {"mi100", {0.060, 0}},          {"mi210", {0.077, 0}},
      {"mi250", {0.107, 0}},          {"rtx3070", {0.489, 0.115}},
      {"rtx6000", {0.389, 0.145}},    {"v100-pcie-32gb", {0.514, 0.133}}};
  for (const auto& [g, figures] : reported) {
    INFO(g);
    const Errors& e = v.per_gpu.at(g);
    REQUIRE(e.n >= 10);
    CHECK(e.time / e.n < 1.2 * figures.first);
    if (figures.second > 0.0) CHECK(e.power / e.np < 1.2 * figures.second);
  }
}

TEST_CASE("The band covers about its level on GPUs it never saw", "[models][validation]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const Validation& v = validation(data);
  // Nested coverage: each left-out GPU's band from the other GPUs' left-out residuals only. Pooled over the
  // left-out rows, docs/predictors.md reports 83.7 % (time) and 92.0 % (power) at the 80 % level.
  double in_t = 0, n_t = 0, in_p = 0, n_p = 0;
  for (const auto& p : v.report.left_out) {
    const Measurement& m = *p.row->row;
    const auto& b = p.prediction.band;
    const double measured = m.time_s(), predicted = p.prediction.time_s(m);
    n_t += 1, in_t += measured >= predicted * b.time_low && measured <= predicted * b.time_high;
    if (m.avg_power_W > 0.0)
      n_p += 1, in_p += m.avg_power_W >= p.prediction.avg_power_W * b.power_low &&
                        m.avg_power_W <= p.prediction.avg_power_W * b.power_high;
  }
  CHECK(in_t / n_t >= 0.80);
  CHECK(in_p / n_p >= 0.90);
  CHECK(in_t / n_t < 0.85);  // and not by being uselessly wide
  CHECK(in_p / n_p < 0.94);
}

TEST_CASE("The unseen band counts each GPU once, the seen band each row", "[models][validation]") {
  // Four GPUs' left-out residuals |ln(measured / predicted)| (predicted 1 s, measured e^r s): A 0.1, 0.2,
  // 0.3, 0.4 (a quarter each), B 0.5 (1), C 0.6 (1), D 0.05, 0.9 (a half each). Weighted split conformal
  // at 0.5 with the new GPU weighing 1: total 4 + 1, need 2.5; cumulative 0.5 (0.05), 0.75, 1, 1.25, 1.5
  // (0.4), 2.5 (0.5): the quantile is 0.5. Counted per row it would be the ceil(9 x 0.5) = 5th of 8, 0.4,
  // which the three-quarters of A's rows pull down; as in-sample (seen) residuals it is that 0.4.
  const std::vector<std::pair<std::string, double>> residuals{
      {"A", 0.1}, {"A", 0.2}, {"A", 0.3}, {"A", 0.4}, {"B", 0.5}, {"C", 0.6}, {"D", 0.05}, {"D", 0.9}};
  std::vector<Measurement> measured(residuals.size());
  std::vector<PreparedRow> rows(residuals.size());
  std::vector<LeftOutPrediction> preds;
  for (std::size_t i = 0; i < residuals.size(); ++i) {
    measured[i].epoch_s = std::exp(residuals[i].second);
    rows[i].row = &measured[i];
    rows[i].gpu.id = residuals[i].first;
    RowPrediction p;
    p.epoch_s = 1.0;
    p.band_class = PowerClass::cnn;
    preds.push_back({&rows[i], p});
  }
  const BandTable unseen = calibrate_band(preds, {}, 0.5);
  CHECK(unseen.time.at("unseen/cnn") == Approx(0.5));
  const BandTable seen = calibrate_band({}, preds, 0.5);
  CHECK(seen.time.at("seen/cnn") == Approx(0.4));
  // At 0.8 the need (4) is met only by the last score; at 0.9 (4.5) by none: the largest score.
  CHECK(calibrate_band(preds, {}, 0.8).time.at("unseen/cnn") == Approx(0.9));
  CHECK(calibrate_band(preds, {}, 0.9).time.at("unseen/cnn") == Approx(0.9));
  CHECK(calibrate_band(preds, {}, 0.2).time.at("unseen/cnn") == Approx(0.2));  // need 1: 0.05, 0.1, 0.2
}

TEST_CASE("Refitting on the shared data reproduces the built-in constants", "[models][validation]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const Validation& v = validation(data);
  const PredictorFit& built_in = default_predictor_fit();
  const PredictorFit& refit = v.report.fit;
  CHECK(refit.time.eta[0] == Approx(built_in.time.eta[0]).epsilon(1e-4));
  CHECK(refit.time.kernel_launch_s == Approx(built_in.time.kernel_launch_s).epsilon(1e-4));
  CHECK(refit.time.eta_memory == Approx(built_in.time.eta_memory).epsilon(1e-4));
  CHECK(refit.power.floor_hbm == Approx(built_in.power.floor_hbm).epsilon(1e-4));
  CHECK(refit.power.floor_gddr == Approx(built_in.power.floor_gddr).epsilon(1e-4));
  for (const auto& [g, w] : built_in.power.gpu_floor_W)
    CHECK(refit.power.gpu_floor_W.at(g) == Approx(w).epsilon(1e-4));
  for (const auto& [group, q] : built_in.band.time)
    CHECK(refit.band.time.at(group) == Approx(q).epsilon(1e-4));
  CHECK(refit.band.seen_gpus == built_in.band.seen_gpus);
  // The GEMM ratios are the built-in GEMM curves' (models/data/gemm_efficiency.toml, the same kernels).
  const GemmEfficiencyFit& gemm = default_gemm_efficiency();
  REQUIRE(built_in.time.family_gemm.size() == built_in.time.family_compute.size());
  for (const auto& [f, r] : built_in.time.family_gemm) {
    CHECK(refit.time.family_gemm.at(f) == Approx(r).epsilon(1e-4));
    CHECK(r == Approx(gemm.curve(f).eta_max / gemm.pooled.eta_max).epsilon(1e-5));
  }
  REQUIRE(refit.workload_work.size() == built_in.workload_work.size());
  for (const auto& [w, x] : built_in.workload_work)
    CHECK(refit.workload_work.at(w) == Approx(x).epsilon(1e-4));
}

TEST_CASE("A tiny-batch job sits near the floor the Zeus V100 file measured", "[models][validation]") {
  // Zeus V100 (../shared/data/zeus-nsdi23/summary_power_v100.csv): ShuffleNetV2 on CIFAR-100 at batch 8 draws
  // 39.1-39.4 W at the 250 W limit (adadelta, adam): the GPU waits on kernel launches.
  fleetwatt::jobs::JobSpec job;
  job.meta.model = "shufflenet_v2";
  job.meta.input_size = 32;
  job.meta.batch_size = 8;
  job.meta.dataset_samples = 50000;
  const double w = DatasheetPredictor().predict(job, gpu_preset("v100-pcie-32gb")).mean_W();
  CHECK(w == Approx(39.0).epsilon(0.25));
}

TEST_CASE("The fit file round-trips and a bad one is refused naming its key", "[models][validation]") {
  const PredictorFit& f = default_predictor_fit();
  const PredictorFit back = parse_predictor_fit(format_predictor_fit(f), "again.toml");
  CHECK(back.time.eta == f.time.eta);
  CHECK(back.power.gpu_floor_W.size() == f.power.gpu_floor_W.size());
  CHECK(back.band.time.size() == f.band.time.size());
  CHECK(back.site.power_varied == f.site.power_varied);
  CHECK(back.site.time_band == f.site.time_band);
  CHECK(back.site.power_band_varied == f.site.power_band_varied);
  // A varied half-width below the band of all is refused at its key; absent, it is the band of all.
  std::string narrow = format_predictor_fit(f);
  narrow.replace(narrow.find("time_band_varied = "), 19, "time_band_varied = 0.01 #");
  CHECK_THROWS_WITH(parse_predictor_fit(narrow, "n.toml"),
                    Catch::Contains("n.toml") && Catch::Contains("site.time_band_varied"));
  std::string absent = format_predictor_fit(f);
  absent.replace(absent.find("power_band_varied = "), 20, "# power_band_varied = ");
  CHECK(parse_predictor_fit(absent, "a.toml").site.power_band_varied == f.site.power_band);
  CHECK_THROWS_WITH(parse_predictor_fit("[time]\neta_tensor = 0.5\n[power]\n[band]\n", "bad.toml"),
                    Catch::Contains("bad.toml") && Catch::Contains("time.eta_vector"));
  // A shrinkage weight outside [0, 1] is refused at its key.
  std::string text = format_predictor_fit(f);
  text.replace(text.find("time_varied = "), 14, "time_varied = 1.5 #");
  CHECK_THROWS_WITH(parse_predictor_fit(text, "w.toml"),
                    Catch::Contains("w.toml") && Catch::Contains("site.time_varied"));
}

TEST_CASE("No predictor reaches 15 % on the RTX 6000 left out: its host-bound epochs",
          "[models][validation]") {
  // Model-free: where the Zeus A40 and V100 measure the same epoch time although their GPUs differ (FP32
  // matmul peak 18.7 vs 14 TFLOP/s, bandwidth 696 vs 900 GB/s), the epoch is bound by the host (eager
  // launches, data loading, NCF's negative sampling), not the GPU. The RTX 6000 (16.3 TFLOP/s, 672 GB/s,
  // within that envelope) takes 1.3-2.4x as long on the same rows: its host is slower. A predictor fitted
  // without the RTX 6000 has no measurement of that host; give it the benefit of the doubt, up to 15 % above
  // the slower of the other two hosts, and its error on those rows alone is still more than 15 % of the RTX
  // 6000's rows' total (docs/predictors.md, "How good is the default predictor").
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const Validation& v = validation(data);
  // (GPU, workload, batch) -> time per epoch at the highest power limit measured (mean of the optimisers).
  std::map<std::tuple<std::string, std::string, std::uint32_t>, std::pair<double, double>> top_limit;
  std::map<std::tuple<std::string, std::string, std::uint32_t>, std::pair<double, int>> at_top;
  for (const auto& m : v.set.rows) {
    if (m.source != "zeus") continue;
    auto& [limit, seconds] = top_limit[{m.gpu, m.workload, m.job.meta.batch_size}];
    (void)seconds;
    limit = std::max(limit, m.power_limit_W);
  }
  for (const auto& m : v.set.rows) {
    if (m.source != "zeus") continue;
    const auto key = std::make_tuple(m.gpu, m.workload, m.job.meta.batch_size);
    if (m.power_limit_W != top_limit[key].first) continue;
    at_top[key].first += m.epoch_s, ++at_top[key].second;
  }
  const auto epoch = [&](const std::string& gpu, const std::string& w, std::uint32_t b) {
    const auto it = at_top.find({gpu, w, b});
    return it == at_top.end() ? 0.0 : it->second.first / it->second.second;
  };
  double excess = 0.0, worst_disagreement = 0.0;
  int host_bound_rows = 0;
  for (const auto& p : v.report.left_out) {
    const Measurement& m = *p.row->row;
    if (m.gpu != "rtx6000" || (m.workload != "ncf/movielens-1m" && m.workload != "shufflenetv2/cifar100"))
      continue;
    const double a40 = epoch("a40", m.workload, m.job.meta.batch_size);
    const double v100 = epoch("v100-pcie-32gb", m.workload, m.job.meta.batch_size);
    if (!(a40 > 0.0 && v100 > 0.0)) continue;
    worst_disagreement = std::max(worst_disagreement, std::abs(std::log(a40 / v100)));
    excess += std::max(0.0, 1.0 - 1.15 * std::max(a40, v100) / m.epoch_s);
    ++host_bound_rows;
  }
  int rtx6000_rows = 0;
  for (const auto& p : v.report.left_out) rtx6000_rows += p.row->gpu.id == "rtx6000";
  INFO(fmt::format("{} host-bound rows of {}; A40 and V100 within {:.3f} (ln)", host_bound_rows, rtx6000_rows,
                   worst_disagreement));
  CHECK(host_bound_rows == 176);  // 96 NCF rows and 80 ShuffleNetV2 rows at batches both others measured
  CHECK(rtx6000_rows == 282);
  CHECK(worst_disagreement < 0.2);  // the A40 and V100 hosts agree within 20 % on every such batch
  // The bound: 40.95 (NCF) + 16.22 (ShuffleNetV2) over 282 rows.
  CHECK(excess / rtx6000_rows == Approx(0.203).margin(0.002));
  CHECK(excess / rtx6000_rows > 0.15);
}

TEST_CASE("The fit's GEMM ratios come from the kernels of the GPUs it fits only", "[models][validation]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const Validation& v = validation(data);
  // read_measurements collects the same kernels as the GEMM curves' reader of the label folder.
  const auto kernels = read_neusight_gemms(data / "neusight-asplos25/label");
  REQUIRE(v.set.gemms.size() == kernels.size());
  CHECK(v.set.gemms.size() == 977);
  // The T4 is the only Turing GPU with kernels: fitted without it, Turing (still fitted through the RTX
  // 6000's rows) takes the pooled curve, ratio 1; with it, its own (0.83, docs/predictors.md, "FP32 GEMM
  // efficiency by size").
  std::vector<PreparedRow> without_t4;
  for (const auto& r : v.rows)
    if (r.gpu.id != "t4") without_t4.push_back(r);
  FitOptions options;
  options.gemm_samples = &v.set.gemms;
  options.max_evaluations = 50;  // the ratios are set before the fit; its constants do not matter here
  const PredictorFit fit = fit_predictor(without_t4, options);
  CHECK(fit.time.family_gemm.at("turing") == 1.0);
  CHECK(v.report.fit.time.family_gemm.at("turing") == Approx(0.831).margin(0.001));
  CHECK(fit.time.family_gemm.at("volta") > 1.1);
}

TEST_CASE("Few-shot calibration (k = 1) stays at the figures docs/calibration.md reports",
          "[models][validation]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const Validation& v = validation(data);
  // The zero-shot comparison is the leave-one-GPU-out one, as `fleetwatt validate --few-shot 1` makes it.
  const ValidationReport zero = left_out_comparison(v);
  const FewShotReport few = few_shot(v.set, zero, 1, 0.8);
  std::string report = "few-shot (k = 1) mean relative error (time, power)\n";
  for (const auto& [g, s] : few.report.gpus)
    report += fmt::format("  {:<16} n={:<4} time {:5.1f} %  power {}\n", g, s.rows, 100 * s.time_mre,
                          s.power_rows ? fmt::format("{:5.1f} %", 100 * s.power_mre) : "-");
  WARN(report);
  // docs/calibration.md, "Few-shot calibration": time and power MRE per GPU with at least 10 predicted rows,
  // and the pooled band coverage at the 80 % level. Guards sit 10 % above the errors.
  const std::map<std::string, std::pair<double, double>> reported{{"a40", {0.127, 0.071}},
                                                                  {"gtx750ti", {0.027, 0.004}},
                                                                  {"rtx3070", {0.062, 0.016}},
                                                                  {"rtx6000", {0.098, 0.120}},
                                                                  {"v100-pcie-32gb", {0.100, 0.123}}};
  for (const auto& [g, figures] : reported) {
    INFO(g);
    const ErrorSummary& s = few.report.gpus.at(g);
    REQUIRE(s.rows >= 10);
    CHECK(s.time_mre < 1.1 * figures.first);
    CHECK(s.power_mre < 1.1 * figures.second + 0.002);
  }
  // Every group is calibrated on one run; the zero-shot errors were 47.3 % and 13.9 % over all rows.
  CHECK(few.calibration_rows + few.uncalibrated_rows + few.report.compared.size() == zero.compared.size());
  CHECK(few.report.all.time_mre < 0.109);   // 9.9 %
  CHECK(few.report.all.power_mre < 0.095);  // 8.6 %
  // Coverage: 83.9 and 85.6 % over all rows; per GPU (time, power) A40 70.1, 99.7 %, RTX 6000 87.8,
  // 64.0 %, V100 87.5, 79.2 %, the varied rows' band the wider.
  CHECK(few.report.all.time_in_band > 0.82);
  CHECK(few.report.all.time_in_band < 0.87);
  CHECK(few.report.all.power_in_band > 0.82);
  CHECK(few.report.all.power_in_band < 0.87);
  const std::map<std::string, std::pair<double, double>> covered{
      {"a40", {0.701, 0.997}}, {"rtx6000", {0.878, 0.640}}, {"v100-pcie-32gb", {0.875, 0.792}}};
  for (const auto& [g, figures] : covered) {
    INFO(g);
    CHECK(few.report.gpus.at(g).time_in_band > figures.first - 0.02);
    CHECK(few.report.gpus.at(g).power_in_band > figures.second - 0.02);
  }
  // What a site's runs are corrected by is this evaluation's, as the built-in fit file keeps it ([site]).
  const SiteShrinkage& built_in = default_predictor_fit().site;
  CHECK(few.site.time_repeat == Approx(built_in.time_repeat).epsilon(1e-4));
  CHECK(few.site.time_varied == Approx(built_in.time_varied).epsilon(1e-4));
  CHECK(few.site.power_repeat == Approx(built_in.power_repeat).epsilon(1e-4));
  CHECK(few.site.power_varied == Approx(built_in.power_varied).epsilon(1e-4));
  CHECK(few.site.time_band == Approx(built_in.time_band).epsilon(1e-4));
  CHECK(few.site.power_band == Approx(built_in.power_band).epsilon(1e-4));
  CHECK(few.site.time_band_varied == Approx(built_in.time_band_varied).epsilon(1e-4));
  CHECK(few.site.power_band_varied == Approx(built_in.power_band_varied).epsilon(1e-4));
  CHECK(few.site.time_band_varied > few.site.time_band);
}

TEST_CASE("The GPU's busy share, left out, against GAISSA's measured one: docs/calibration.md's table",
          "[models][validation]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const Validation& v = validation(data);
  const ValidationReport zero = left_out_comparison(v);
  // (GPU, workload): rows, measured share (GAISSA's "gpu usage (%)", mean over the runs), predicted share
  // (the leave-one-GPU-out split's), as docs/calibration.md tabulates them.
  const std::map<std::pair<std::string, std::string>, std::tuple<std::size_t, double, double>> reported{
      {{"gtx750ti", "keras-mobilenet_v2"}, {30, 0.944, 0.352}},
      {{"gtx750ti", "keras-nasnet_mobile"}, {30, 0.962, 0.965}},
      {{"rtx3070", "keras-mobilenet_v2"}, {37, 0.591, 0.203}},
      {{"rtx3070", "keras-nasnet_mobile"}, {30, 0.774, 0.720}},
      {{"rtx3070", "keras-resnet50"}, {30, 0.901, 0.903}},
      {{"rtx3070", "keras-vgg16"}, {32, 0.956, 0.961}},
      {{"rtx3070", "keras-xception"}, {30, 0.929, 0.918}}};
  const std::vector<BusyShare> busy = busy_shares(v.set, zero);
  REQUIRE(busy.size() == reported.size());
  for (const BusyShare& b : busy) {
    INFO(b.gpu << " " << b.workload);
    const auto& [rows, measured, predicted] = reported.at({b.gpu, b.workload});
    CHECK(b.rows == rows);
    CHECK(b.measured == Approx(measured).margin(0.0005));
    CHECK(b.predicted == Approx(predicted).margin(0.02));
  }
  // The dense networks' share is right within 2 points; the depthwise one's is under half the measured one
  // on both GPUs: the zero-shot model's GPU work for depthwise layers is short (its host-bound steps).
  for (const BusyShare& b : busy) {
    INFO(b.gpu << " " << b.workload);
    if (b.workload == "keras-mobilenet_v2")
      CHECK(b.predicted < 0.4 * b.measured);
    else if (b.gpu == "rtx3070" && b.workload != "keras-nasnet_mobile")
      CHECK(std::abs(b.predicted - b.measured) < 0.02);
  }
}
