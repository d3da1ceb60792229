// Tests for the pass every trace format shares: inference of missing fields, run-time matching, clipping,
// deferrable marking, determinism.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>

#include "fleetwatt/jobs/trace.hpp"

using namespace fleetwatt::jobs;

namespace {

// A stand-in predictor: an epoch processes the dataset at 2,000 samples/s plus a fixed 30 s of checkpointing,
// so epoch time is not proportional to the dataset and the matcher has to iterate.
double fake_runtime(const JobSpec& j) {
  return j.epochs * (j.meta.dataset_samples / 2000.0 + 30.0);
}

TraceRead read_helios(TraceOptions o = {}) {
  o.format = TraceFormat::helios;
  return read_trace(std::filesystem::path(FLEETWATT_TRACE_SAMPLES) / "helios_sample.csv", o);
}

}  // namespace

TEST_CASE("fields a trace lacks are drawn from the priors and flagged as inferred", "[traces]") {
  const auto r = read_helios();
  for (const auto& j : r.jobs) {
    CHECK((j.job_class == "vit" || j.job_class == "bert"));
    CHECK(j.meta.batch_size > 0);
    CHECK(j.meta.dataset_samples >= 1.0e5);
    CHECK(j.epochs >= 1);
    CHECK(j.epochs <= 100);
    CHECK(inferred_names(j.inferred) == "job_class,model,batch_size,dataset_samples,epochs,precision");
  }
}

TEST_CASE("epochs and dataset size are chosen so the predicted run time equals the recorded one",
          "[traces]") {
  TraceOptions o;
  o.estimate = fake_runtime;
  const auto r = read_helios(o);
  REQUIRE(r.jobs.size() == 4);
  CHECK(r.worst_match_error < 1e-9);
  for (const auto& j : r.jobs) CHECK(fake_runtime(j) == Approx(*j.recorded_runtime_s).epsilon(1e-9));
  // The 249 s failed job: at most one epoch of >= 50 s + 30 s fits, so epochs = round(249 / epoch) is small.
  CHECK(r.jobs[1].epochs <= 3);
}

TEST_CASE("the same seed gives the same jobs and another seed other inferred fields", "[traces]") {
  TraceOptions a, b;
  b.seed = 2;
  const auto r1 = read_helios(a), r2 = read_helios(a), r3 = read_helios(b);
  bool any_differs = false;
  for (std::size_t i = 0; i < r1.jobs.size(); ++i) {
    CHECK(r1.jobs[i].meta.dataset_samples == r2.jobs[i].meta.dataset_samples);
    CHECK(r1.jobs[i].epochs == r2.jobs[i].epochs);
    any_differs |= r1.jobs[i].meta.dataset_samples != r3.jobs[i].meta.dataset_samples;
  }
  CHECK(any_differs);
}

TEST_CASE("jobs larger than the fleet are clipped and flagged", "[traces]") {
  TraceOptions o;
  o.max_gpus = 8;
  const auto r = read_helios(o);
  CHECK(r.clipped == 1);
  CHECK(r.jobs[3].n_gpus == 8);
  CHECK((r.jobs[3].inferred & inferred::n_gpus) != 0);
  o.max_jobs = 2;
  CHECK(read_helios(o).jobs.size() == 2);
}

TEST_CASE("a deferrable share of jobs gets deadlines after their recorded run time", "[traces]") {
  TraceOptions o;
  o.deferrable_fraction = 1.0;
  o.defer_window_s = 3600.0;
  const auto r = read_helios(o);
  for (const auto& j : r.jobs) {
    CHECK(j.deferrable);
    CHECK(*j.deadline_s == j.submit_s + *j.recorded_runtime_s + 3600.0);
  }
  o.deferrable_fraction = 0.0;
  for (const auto& j : read_helios(o).jobs) CHECK_FALSE(j.deferrable);
}

TEST_CASE("quantiles interpolate between order statistics", "[traces]") {
  std::vector<double> v{4, 1, 3, 2};
  CHECK(quantile(v, 0.5) == 2.5);
  CHECK(quantile(v, 0.0) == 1.0);
  CHECK(quantile(v, 1.0) == 4.0);
  CHECK(quantile(v, 1.0 / 3.0) == Approx(2.0));
  std::vector<double> two{1.0, 2.0}, none;
  CHECK(quantile(two, 0.99) == Approx(1.99));
  CHECK(quantile(none, 0.5) == 0.0);
}
