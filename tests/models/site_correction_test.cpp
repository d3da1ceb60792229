// A site's runs as factors and a band, against hand calculations: the shrunk mean log ratio of a group's
// runs, the weight for a repeated or a varied configuration, the leave-one-run-out residuals pooled with the
// fitted half-width (for a varied job, the varied one), a draw at its limit left there, and a power factor
// scaling the draw above idle.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "fleetwatt/models/site_correction.hpp"

using namespace fleetwatt::models;

namespace {
SiteShrinkage shrinkage() {
  SiteShrinkage w;
  w.time_repeat = 1.0, w.time_varied = 0.5, w.power_repeat = 0.8, w.power_varied = 0.25;
  w.time_band = 0.2, w.power_band = 0.1;
  return w;
}
}  // namespace

TEST_CASE("a site's factor is its runs' mean log ratio, shrunk by the weight for a repeat or a varied job",
          "[models][site]") {
  // Two runs of resnet50 on an A40: time ratios 1.2 and 1.4 at batches 64 and 128, power 0.9 and 1.1.
  std::vector<SiteCorrection::Run> runs{
      {"a40", "resnet50", {64, 0.0}, 1.2, 1.0, {}, std::log(0.9), false},
      {"a40", "resnet50", {128, 0.0}, 1.4, 1.0, {}, std::log(1.1), false},
      {"v100", "bert", {32, 0.0}, 2.0, 1.0, {}, std::numeric_limits<double>::quiet_NaN(), false}};
  const SiteCorrection site(runs, shrinkage(), 0.8);
  const double mt = (std::log(1.2) + std::log(1.4)) / 2.0, mp = (std::log(0.9) + std::log(1.1)) / 2.0;

  // Two runs weigh more than one: w1 becomes n / (n + k), k = (1 - w1) / w1. Batch 64 at the default limit
  // repeats the first run: time 1 stays 1; power 0.8 (k = 0.25) becomes 2 / 2.25.
  auto f = site.factors("a40", "resnet50", {64, 0.0});
  CHECK(f.runs == 2);
  CHECK(f.time == Approx(std::sqrt(1.2 * 1.4)));  // exp(1 x mean log) = the geometric mean
  CHECK(f.power == Approx(std::exp(2.0 / 2.25 * mp)));
  // Batch 256 varies them: time 0.5 (k = 1) becomes 2 / 3, power 0.25 (k = 3) becomes 2 / 5.
  f = site.factors("a40", "resnet50", {256, 0.0});
  CHECK(f.time == Approx(std::exp(2.0 / 3.0 * mt)));
  CHECK(f.power == Approx(std::exp(0.4 * mp)));
  // So does batch 64 under a 200 W limit.
  CHECK(site.factors("a40", "resnet50", {64, 200.0}).time == Approx(std::exp(2.0 / 3.0 * mt)));
  CHECK(credibility(0.5, 1) == Approx(0.5));
  CHECK(credibility(0.5, 3) == Approx(0.75));
  CHECK(credibility(1.0, 2) == 1.0);
  CHECK(credibility(0.0, 5) == 0.0);
  CHECK(credibility(0.7, 0) == 0.0);
  // Another GPU or workload: nothing to correct by; a run without power corrects time only.
  CHECK(site.factors("v100", "resnet50", {64, 0.0}).runs == 0);
  CHECK(site.factors("a40", "bert", {64, 0.0}).time == 1.0);
  f = site.factors("v100", "bert", {32, 0.0});
  CHECK(f.time == Approx(2.0));
  CHECK(f.power == 1.0);
  // A run without a measured epoch corrects power only.
  const SiteCorrection untimed({{"v100", "bert", {32, 0.0}, 0.0, 1.0, {}, std::log(1.5), false}}, shrinkage(),
                               0.8);
  f = untimed.factors("v100", "bert", {32, 0.0});
  CHECK(f.runs == 1);
  CHECK(f.time == 1.0);
  CHECK(f.power == Approx(std::exp(0.8 * std::log(1.5))));

  // The band: each resnet50 run predicted from the other alone (a varied configuration: weights 0.5, 0.25),
  // its |log residual|; with two of its own against 10 at the fitted half-width, h = (10 x h0 + 2 x q) / 12,
  // q the conformal quantile of the two at 80 %: the ceil(3 x 0.8) = 3rd smallest, past 2, so the larger.
  const double rt =
      std::max(std::abs(std::log(1.2) - 0.5 * std::log(1.4)), std::abs(std::log(1.4) - 0.5 * std::log(1.2)));
  const double rp = std::max(std::abs(std::log(0.9) - 0.25 * std::log(1.1)),
                             std::abs(std::log(1.1) - 0.25 * std::log(0.9)));
  CHECK(site.own_residuals() == 2);
  CHECK(site.time_band() == Approx((10.0 * 0.2 + 2.0 * rt) / 12.0));
  CHECK(site.power_band() == Approx((10.0 * 0.1 + 2.0 * rp) / 12.0));
  f = site.factors("a40", "resnet50", {64, 0.0});
  CHECK(f.band.level == 0.8);
  CHECK(f.band.time_high == Approx(std::exp(site.time_band())));
  CHECK(f.band.power_low == Approx(std::exp(-site.power_band())));
  // Without fitted varied half-widths a varied job's band is the same.
  CHECK(site.factors("a40", "resnet50", {256, 0.0}).band.time_high == Approx(std::exp(site.time_band())));

  // With them (0.3 and 0.15), a job that varies the runs' batch or limit takes them pooled with the site's
  // varied residuals (both runs' here: each is predicted from a run at another batch), and a job that
  // repeats a run keeps the band of all.
  SiteShrinkage wider = shrinkage();
  wider.time_band_varied = 0.3, wider.power_band_varied = 0.15;
  const SiteCorrection varied(runs, wider, 0.8);
  CHECK(varied.time_band() == Approx(site.time_band()));
  CHECK(varied.time_band_varied() == Approx((10.0 * 0.3 + 2.0 * rt) / 12.0));
  CHECK(varied.power_band_varied() == Approx((10.0 * 0.15 + 2.0 * rp) / 12.0));
  f = varied.factors("a40", "resnet50", {256, 0.0});
  CHECK(f.band.time_high == Approx(std::exp(varied.time_band_varied())));
  CHECK(f.band.power_high == Approx(std::exp(varied.power_band_varied())));
  f = varied.factors("a40", "resnet50", {64, 0.0});
  CHECK(f.band.time_high == Approx(std::exp(varied.time_band())));
  // A fitted varied half-width below the band of all is never used: the band of all is the floor.
  wider.time_band_varied = 0.0;
  CHECK(SiteCorrection(runs, wider, 0.8).time_band_varied() == Approx(site.time_band()));
}

TEST_CASE("a corrected draw stays at a limit that binds and never passes one", "[models][site]") {
  CHECK(corrected_power(200.0, 1.1, 300.0, 0.0) == Approx(220.0));
  CHECK(corrected_power(290.0, 1.1, 300.0, 0.0) == 300.0);        // capped
  CHECK(corrected_power(298.0, 0.8, 300.0, 0.0) == 298.0);        // within 1 % of the limit: the limit binds
  CHECK(corrected_power(200.0, 1.1, 0.0, 0.0) == Approx(220.0));  // no limit known
  CHECK(binds(297.0, 300.0));
  CHECK_FALSE(binds(296.0, 300.0));
}

TEST_CASE("a power factor scales the draw above the board's idle", "[models][site]") {
  // An A40 idles at 30 W (its preset): 200 W predicted is 170 W of work; x 1.1 is 187 W, so 217 W.
  CHECK(correction_idle_W("a40") == 30.0);
  CHECK(correction_idle_W("no-such-gpu") == 0.0);  // scaled whole
  CHECK(corrected_power(200.0, 1.1, 300.0, 30.0) == Approx(217.0));
  CHECK(corrected_power(290.0, 1.1, 300.0, 30.0) == 300.0);  // 316 W capped
  CHECK(corrected_power(25.0, 2.0, 300.0, 30.0) == 25.0);    // no work above idle to scale
  // A run measured at 250 W where 200 W was predicted: (250 - 30) / (200 - 30).
  CHECK(power_log_ratio(250.0, 200.0, 30.0) == Approx(std::log(220.0 / 170.0)));
  CHECK(std::exp(power_log_ratio(250.0, 200.0, 30.0)) * 170.0 + 30.0 == Approx(250.0));
  CHECK(std::isnan(power_log_ratio(28.0, 200.0, 30.0)));  // measured at idle: says nothing of the work
  CHECK(std::isnan(power_log_ratio(0.0, 200.0, 0.0)));    // not measured
  CHECK(power_log_ratio(250.0, 200.0, 0.0) == Approx(std::log(1.25)));
}

TEST_CASE("a job's workload for a site is its model, marked where a step is one forward pass",
          "[models][site]") {
  fleetwatt::jobs::JobSpec job;
  job.meta.model = "resnet50";
  CHECK(site_workload(job) == "resnet50");
  job.meta.flops_per_sample = 2e9;
  job.meta.training_flops_per_sample = 2e9;
  CHECK(site_workload(job) == "resnet50 (forward)");
  job.meta.model.clear();
  CHECK(site_workload(job).empty());
}
