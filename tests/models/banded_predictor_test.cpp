// Low/mid/high runs: a job's time and power move to the ends of its own calibrated band (energy by the
// product of the two, as uncertainty() states).
#include <catch2/catch.hpp>

#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/models/predictors/banded_predictor.hpp"

using namespace fleetwatt;

TEST_CASE("band runs scale a job's durations and powers by its own calibrated band", "[band]") {
  models::PredictorConfig config;  // the default predictor
  jobs::JobSpec job;
  job.n_gpus = 4;
  job.meta.model = "resnet50";
  job.meta.batch_size = 256;
  job.meta.input_size = 224;
  job.meta.dataset_samples = 100000;
  const auto& gpu = models::gpu_preset("a100-sxm-80gb");
  const auto registry = models::PredictorRegistry::with_builtins();
  auto mid = models::at_band(registry.make(config), models::Band::mid);
  auto low = models::at_band(registry.make(config), models::Band::low);
  auto high = models::at_band(registry.make(config), models::Band::high);
  const auto m = mid->predict(job, gpu);
  const auto u = mid->uncertainty(job, gpu);
  REQUIRE(u.low > 0.0);
  REQUIRE(u.high > 0.0);
  const auto l = low->predict(job, gpu);
  const auto h = high->predict(job, gpu);
  const auto b = mid->band(job, gpu);
  REQUIRE(b.level > 0.0);
  CHECK(l.peak_W == Approx(m.peak_W * b.power_low));
  CHECK(l.valley_W == Approx(m.valley_W * b.power_low));
  CHECK(h.peak_W == Approx(m.peak_W * b.power_high));
  CHECK(h.peak_s == Approx(m.peak_s * b.time_high));
  CHECK(h.valley_s == Approx(m.valley_s * b.time_high));
  CHECK(h.epoch_energy_J() == Approx(m.epoch_energy_J() * (1 + u.high)));
  CHECK(l.epoch_energy_J() == Approx(m.epoch_energy_J() * (1 - u.low)));
  CHECK(mid->name() == "datasheet");
}
