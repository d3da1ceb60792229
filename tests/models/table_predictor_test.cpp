// The table predictor: built-in published classes, scenario classes, and linear scaling with dataset size.
#include <catch2/catch.hpp>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictors/table_predictor.hpp"

using namespace fleetwatt;

TEST_CASE("built-in classes are the published 4-GPU A800 ViT and BERT epochs", "[table]") {
  models::TablePredictor t;
  jobs::JobSpec vit;
  vit.job_class = "vit";
  CHECK(t.predict(vit, models::gpu_preset("a800")) == jobs::PhaseProfile{291.06, 182.58, 62.23, 6.41});
  jobs::JobSpec bert;
  bert.job_class = "bert";
  CHECK(t.predict(bert, models::gpu_preset("a800")) == jobs::PhaseProfile{320.72, 169.25, 67.01, 5.98});
}

TEST_CASE("phase durations scale linearly with the dataset, powers do not", "[table]") {
  models::TablePredictor t;
  jobs::JobSpec j;
  j.job_class = "vit";
  j.meta.dataset_samples = 250000;  // 2.5 x the 100,000-sample reference
  auto p = t.predict(j, models::gpu_preset("a800"));
  CHECK(p.peak_s == Approx(2.5 * 182.58));
  CHECK(p.valley_s == Approx(2.5 * 6.41));
  CHECK(p.peak_W == 291.06);
  CHECK(p.valley_W == 62.23);
}

TEST_CASE("scenario classes add to and override the built-ins", "[table]") {
  models::JobClassConfig mine{"mine", {100, 10, 50, 1}, 1000, {}};
  models::JobClassConfig vit{"vit", {200, 20, 60, 2}, 0, {}};
  models::TablePredictor t({mine, vit});
  jobs::JobSpec j;
  j.job_class = "mine";
  j.meta.dataset_samples = 500;
  CHECK(t.predict(j, models::gpu_preset("a800")) == jobs::PhaseProfile{100, 5, 50, 0.5});
  j.job_class = "vit";  // no reference size: no scaling
  CHECK(t.predict(j, models::gpu_preset("a800")) == jobs::PhaseProfile{200, 20, 60, 2});
  CHECK(t.class_names() == std::vector<std::string>{"bert", "mine", "vit"});
}

TEST_CASE("explicit phases win and a job with neither is refused", "[table]") {
  models::TablePredictor t;
  jobs::JobSpec j;
  j.phases = jobs::PhaseProfile{1, 2, 3, 4};
  CHECK(t.predict(j, models::gpu_preset("a800")) == *j.phases);
  jobs::JobSpec none;
  none.class_origin = {"s.toml", 4, 1};
  CHECK_THROWS_WITH(t.predict(none, models::gpu_preset("a800")),
                    "s.toml:4:1: class: job 0 has neither a class nor phase values");
}
