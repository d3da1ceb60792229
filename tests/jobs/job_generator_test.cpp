// The synthetic workload: arrival counts follow the diurnal rate, the mix follows its weights, and the
// same seed gives the same jobs.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "fleetwatt/jobs/job_generator.hpp"

using namespace fleetwatt::jobs;

namespace {
GeneratorConfig thirty_days() {
  GeneratorConfig g;
  g.mean_rate_per_s = 100.0 / 3600.0;
  g.diurnal_amplitude = 0.5;
  g.peak_time_of_day_s = 14 * 3600.0;
  g.start_s = 0;
  g.end_s = 30 * 86400.0;
  MixEntry a;
  a.weight = 3;
  a.job_class = "vit";
  a.n_gpus = {1, 8};
  a.n_gpus_weights = {0.75, 0.25};
  a.epochs_min = 2;
  a.epochs_max = 5;
  MixEntry b;
  b.weight = 1;
  b.job_class = "bert";
  b.samples_min = 1000;
  b.samples_max = 2000;
  g.mix = {a, b};
  return g;
}
}  // namespace

TEST_CASE("arrivals per hour of day follow the cosine rate profile", "[generator]") {
  auto g = thirty_days();
  auto jobs = generate_jobs(g, 12345, 1);
  std::vector<double> per_hour(24, 0.0);
  for (const auto& j : jobs) per_hour[static_cast<int>(std::fmod(j.submit_s, 86400.0) / 3600.0)] += 1;
  for (int h = 0; h < 24; ++h) {
    // Expected count: 30 days x the integral of mean (1 + a cos(2 pi (t - 14 h) / 24 h)) over the hour.
    const double w = 2 * std::numbers::pi / 86400.0;
    const double t0 = h * 3600.0 - 14 * 3600.0, t1 = t0 + 3600.0;
    const double integral = g.mean_rate_per_s * (3600.0 + 0.5 * (std::sin(w * t1) - std::sin(w * t0)) / w);
    const double expected = 30 * integral;
    // Poisson: within 4.5 standard deviations (a false alarm about once in 150,000 hours).
    CHECK(std::fabs(per_hour[h] - expected) < 4.5 * std::sqrt(expected));
  }
  // The total follows the mean rate: 100/h for 720 h.
  CHECK(static_cast<double>(jobs.size()) == Approx(72000).margin(4.5 * std::sqrt(72000.0)));
}

TEST_CASE("the job mix follows its weights and ranges", "[generator]") {
  auto jobs = generate_jobs(thirty_days(), 777, 100);
  double vit = 0, eight = 0;
  for (const auto& j : jobs) {
    if (j.job_class == "vit") {
      ++vit;
      eight += j.n_gpus == 8;
      CHECK((j.epochs >= 2 && j.epochs <= 5));
      CHECK(j.meta.dataset_samples == 0);
    } else {
      CHECK(j.n_gpus == 1);
      CHECK((j.meta.dataset_samples >= 1000 && j.meta.dataset_samples <= 2000));
    }
  }
  const double n = static_cast<double>(jobs.size());
  CHECK(vit / n == Approx(0.75).margin(0.01));
  CHECK(eight / vit == Approx(0.25).margin(0.01));
  CHECK(jobs.front().id == 100);
  CHECK(jobs.back().id == 100 + static_cast<std::int64_t>(jobs.size()) - 1);
}

TEST_CASE("the same seed gives the same jobs, another seed other jobs", "[generator][determinism]") {
  auto a = generate_jobs(thirty_days(), 5, 1);
  auto b = generate_jobs(thirty_days(), 5, 1);
  auto c = generate_jobs(thirty_days(), 6, 1);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].submit_s == b[i].submit_s);
    CHECK(a[i].n_gpus == b[i].n_gpus);
  }
  CHECK(a.front().submit_s != c.front().submit_s);
}
