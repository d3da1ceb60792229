// Low/mid/high runs: phase powers move to the ends of each job's own uncertainty band, durations do not.
#include <catch2/catch.hpp>

#include "fleetwatt/models/banded_predictor.hpp"
#include "fleetwatt/models/predictor_registry.hpp"

using namespace fleetwatt;

TEST_CASE("band runs scale a job's phase powers by its own band and keep its durations", "[band]") {
  workloads::PredictorConfig config;  // the default predictor
  workloads::JobSpec job;
  job.n_gpus = 4;
  job.meta.model = "resnet50";
  job.meta.batch_size = 256;
  job.meta.input_size = 224;
  job.meta.dataset_samples = 100000;
  const auto& gpu = models::gpu_preset("a100-sxm-80gb");
  const auto registry = models::PredictorRegistry::with_builtins();
  auto mid = models::at_band(registry.make(config), workloads::Band::mid);
  auto low = models::at_band(registry.make(config), workloads::Band::low);
  auto high = models::at_band(registry.make(config), workloads::Band::high);
  const auto m = mid->predict(job, gpu);
  const auto u = mid->uncertainty(job, gpu);
  REQUIRE(u.low > 0.0);
  REQUIRE(u.high > 0.0);
  const auto l = low->predict(job, gpu);
  const auto h = high->predict(job, gpu);
  CHECK(l.peak_W == Approx(m.peak_W * (1 - u.low)));
  CHECK(l.valley_W == Approx(m.valley_W * (1 - u.low)));
  CHECK(h.peak_W == Approx(m.peak_W * (1 + u.high)));
  CHECK(h.peak_s == m.peak_s);
  CHECK(h.valley_s == m.valley_s);
  CHECK(h.epoch_energy_J() == Approx(m.epoch_energy_J() * (1 + u.high)));
  CHECK(mid->name() == "datasheet");
}
