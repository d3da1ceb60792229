// Few-shot calibration: the shrinkage weight against closed forms, and the
// evaluation's choice of calibration rows, its factors and its bands (all rows', and the varied rows') on a
// hand-built set.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <utility>
#include <vector>

#include "fleetwatt/models/few_shot.hpp"
#include "fleetwatt/models/fit/predictor_fit.hpp"

using namespace fleetwatt::models;

TEST_CASE("the shrinkage weight is the least-squares slope through the origin, within [0, 1]", "[few-shot]") {
  // y = 0.5 x exactly: w = 0.5; the pairs (1, 1) and (1, 0): w = sum xy / sum xx = 1 / 2.
  CHECK(shrinkage_weight({{0.2, 0.1}, {-0.4, -0.2}}) == Approx(0.5).epsilon(1e-12));
  CHECK(shrinkage_weight({{1.0, 1.0}, {1.0, 0.0}}) == Approx(0.5).epsilon(1e-12));
  CHECK(shrinkage_weight({{0.1, 0.3}}) == 1.0);   // clipped: the runs never tell more than themselves
  CHECK(shrinkage_weight({{0.1, -0.3}}) == 0.0);  // clipped: the datasheet
  CHECK(shrinkage_weight({}) == 0.0);
  CHECK(shrinkage_weight({{0.0, 0.3}}) == 0.0);  // calibration runs that say nothing
}

namespace {

/// A row of GPU `gpu`: measured epoch `ratio` x 100 s and power `power_ratio` x 200 W; the zero-shot
/// prediction is 100 s and 200 W.
void add_row(MeasurementSet& set, ValidationReport& zero, const std::string& gpu, double batch,
             double limit_W, double ratio, double power_ratio) {
  Measurement m;
  m.gpu = gpu;
  m.workload = "resnet50";
  m.power_limit_W = limit_W;
  m.tdp_W = 400.0;
  m.job.meta.batch_size = static_cast<std::uint32_t>(batch);
  m.epoch_s = 100.0 * ratio;
  m.avg_power_W = 200.0 * power_ratio;
  set.rows.push_back(m);
  RowComparison c;
  c.row = set.rows.size() - 1;
  c.measured_s = m.epoch_s;
  c.predicted_s = 100.0;
  c.measured_W = m.avg_power_W;
  c.predicted_W = 200.0;
  zero.compared.push_back(c);
}

}  // namespace

TEST_CASE("few-shot: the default-limit, middle-batch run calibrates its group and the others are predicted",
          "[few-shot]") {
  MeasurementSet set;
  ValidationReport zero;
  // Three GPUs, each off by its own constant factor with a little scatter, so that the other two GPUs'
  // groups give a spread between groups much larger than within.
  const struct {
    const char* gpu;
    double factor;
  } gpus[] = {{"a", 1.5}, {"b", 0.8}, {"c", 1.1}};
  for (const auto& g : gpus) {
    // Listed out of the rule's order: the rule takes the run at the default limit (0) with the middle of
    // the default-limit runs' batches (32, 64, 128).
    add_row(set, zero, g.gpu, 128, 0.0, g.factor * 1.01, g.factor);
    add_row(set, zero, g.gpu, 64, 350.0, g.factor * 0.97, g.factor);
    add_row(set, zero, g.gpu, 64, 0.0, g.factor, g.factor);  // the calibration run
    add_row(set, zero, g.gpu, 32, 0.0, g.factor * 0.99, g.factor);
  }
  const FewShotReport few = few_shot(set, zero, 1, 0.8);
  CHECK(few.calibration_rows == 3);
  CHECK(few.uncalibrated_rows == 0);
  REQUIRE(few.report.compared.size() == 9);
  for (const auto& c : few.report.compared) {
    // Never a calibration run (the third of each GPU's four), and the rows' indices are the set's.
    CHECK(c.row % 4 != 2);
    CHECK(set.rows[c.row].epoch_s == c.measured_s);
  }
  // GPU a's weight comes from b and c, whose calibration runs foretell their other runs to within 3 %: it is
  // near 1 and the factor near 1.5, so a's time errors are its runs' own scatter, 1-3 %, where the
  // zero-shot's were 33 %.
  const ErrorSummary& a = few.report.gpus.at("a");
  CHECK(a.rows == 3);
  CHECK(a.time_mre < 0.03);
  CHECK(a.power_mre < 1e-3);  // power is exactly factor x 200 W in every run of a GPU
  // Its weights: b's and c's other runs (batch 64 at 350 W, batches 128 and 32) vary the calibration run's
  // configuration; none repeats it, so a repeat would be weighed the same.
  const ShrinkageWeights& w = few.time_weights.at("a");
  CHECK(w.varied > 0.95);
  CHECK(w.varied <= 1.0);
  CHECK(w.varied_pairs == 6);
  CHECK(w.repeat_pairs == 0);
  CHECK(w.repeat == w.varied);
  // k = 0 predicts every row with factor 1: the zero-shot errors, |100 s - measured| / measured, about
  // 1 - 1/1.5 for a.
  const FewShotReport none = few_shot(set, zero, 0, 0.8);
  CHECK(none.report.compared.size() == 12);
  CHECK(none.report.gpus.at("a").time_mre == Approx(1.0 - 1.0 / 1.5).margin(0.01));
  // A group of no more than k rows is not predicted.
  CHECK(few_shot(set, zero, 4, 0.8).report.compared.empty());
  CHECK(few_shot(set, zero, 4, 0.8).uncalibrated_rows == 12);
}

TEST_CASE("few-shot power: a prediction at the row's power limit stays there", "[few-shot]") {
  MeasurementSet set;
  ValidationReport zero;
  // Every GPU's default-limit runs draw 0.8 x the predicted 200 W; a run capped at 200 W (its prediction at
  // the limit) draws the limit. The 0.8 factor must not pull the capped run below its limit.
  for (const char* gpu : {"a", "b", "c"}) {
    add_row(set, zero, gpu, 32, 0.0, 1.0, std::string(gpu) == "b" ? 0.9 : 0.8);
    add_row(set, zero, gpu, 64, 0.0, 1.0, std::string(gpu) == "b" ? 0.9 : 0.8);
    add_row(set, zero, gpu, 64, 200.0, 1.0, 1.0);
  }
  const FewShotReport few = few_shot(set, zero, 1, 0.8);
  for (const auto& c : few.report.compared)
    if (set.rows[c.row].power_limit_W == 200.0) CHECK(c.predicted_W == 200.0);
}

TEST_CASE("few-shot power: a group's factor scales the draw above the board's idle", "[few-shot]") {
  MeasurementSet set;
  ValidationReport zero;
  // Three boards with presets (idle 30, 15 and 25 W), each drawing idle + f x (predicted - idle) at every
  // batch, f its own: a factor on the whole draw would miss the small batches' low draws, one on the draw
  // above idle fits every run.
  const struct {
    const char* gpu;
    double idle_W, factor;
  } gpus[] = {{"a40", 30.0, 1.5}, {"rtx6000", 15.0, 0.8}, {"v100-pcie-32gb", 25.0, 1.2}};
  for (const auto& g : gpus) {
    for (const double batch : {8.0, 64.0, 512.0}) {
      Measurement m;
      m.gpu = g.gpu;
      m.workload = "resnet50";
      m.tdp_W = 600.0;  // above every draw: no limit binds
      m.job.meta.batch_size = static_cast<std::uint32_t>(batch);
      const double predicted_W = 40.0 + 30.0 * std::log2(batch);  // 130, 220 and 310 W
      m.epoch_s = 100.0;
      m.avg_power_W = g.idle_W + g.factor * (predicted_W - g.idle_W);
      set.rows.push_back(m);
      RowComparison c;
      c.row = set.rows.size() - 1;
      c.measured_s = c.predicted_s = 100.0;
      c.measured_W = m.avg_power_W;
      c.predicted_W = predicted_W;
      zero.compared.push_back(c);
    }
  }
  const FewShotReport few = few_shot(set, zero, 1, 0.8);
  // The calibration run is batch 64; the other GPUs' runs foretell theirs exactly, so every weight is 1.
  CHECK(few.power_weights.at("a40").varied == Approx(1.0));
  REQUIRE(few.report.compared.size() == 6);
  for (const auto& c : few.report.compared) {
    INFO(set.rows[c.row].gpu << " batch " << set.rows[c.row].job.meta.batch_size);
    CHECK(c.predicted_W == Approx(c.measured_W));
  }
  // By hand: the A40 at batch 8 predicted 130 W draws 30 + 1.5 x 100 = 180 W; a whole-draw factor from
  // batch 64 (1.5 x 190 + 30 = 315 W against 220 W predicted) would have given 130 x 315 / 220 = 186 W.
  for (const auto& c : few.report.compared)
    if (set.rows[c.row].gpu == "a40" && set.rows[c.row].job.meta.batch_size == 8)
      CHECK(c.predicted_W == Approx(180.0));
}

TEST_CASE("few-shot band: rows that vary the calibration run take the wider band of such rows",
          "[few-shot]") {
  MeasurementSet set;
  ValidationReport zero;
  // Each GPU off by its own factor: a repeat of the calibration run (batch 64, default limit) measures the
  // same, batch 128 takes 1.3x as long and batch 32 0.8x.
  for (const auto& [gpu, factor] : {std::pair{"a", 1.5}, {"b", 0.8}, {"c", 1.1}}) {
    add_row(set, zero, gpu, 64, 0.0, factor, 1.0);  // the calibration run
    add_row(set, zero, gpu, 64, 0.0, factor, 1.0);
    add_row(set, zero, gpu, 128, 0.0, factor * 1.3, 1.0);
    add_row(set, zero, gpu, 32, 0.0, factor * 0.8, 1.0);
  }
  const FewShotReport few = few_shot(set, zero, 1, 0.5);
  REQUIRE(few.report.compared.size() == 9);
  // The site's half-widths are over every GPU's corrected rows: |log(measured / predicted)| of all nine
  // at 50 %, the ceil(10 x 0.5) = 5th smallest, and of the six varied ones, the ceil(7 x 0.5) = 4th.
  std::vector<double> all, varied;
  for (const auto& c : few.report.compared) {
    all.push_back(std::abs(std::log(c.measured_s / c.predicted_s)));
    if (set.rows[c.row].job.meta.batch_size != 64) varied.push_back(all.back());
  }
  std::sort(all.begin(), all.end());
  std::sort(varied.begin(), varied.end());
  REQUIRE(varied.size() == 6);
  CHECK(all[2] < 1e-12);  // the repeats are predicted exactly (their weight is 1)
  CHECK(few.site.time_band == Approx(all[4]).margin(1e-12));
  CHECK(few.site.time_band_varied == Approx(varied[3]).margin(1e-12));
  CHECK(few.site.time_band_varied > few.site.time_band);
  // Every power is as predicted: both power bands are 0.
  CHECK(few.site.power_band_varied == Approx(0.0).margin(1e-12));
}
