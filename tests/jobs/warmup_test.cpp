// The warm-up of a generated workload: [workload] warmup_s is read and checked, the warm-up's arrivals
// continue the generator backwards in time (its day/night cycle included) without touching the window's,
// and the default rule gives 2 x the longest generated run time, rounded up to whole hours; a periodic
// warm-up repeats the window's own jobs, shifted back by whole windows (its last warmup_s of them).
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "../runs/scenario_test_support.hpp"
#include "fleetwatt/jobs/job_generator.hpp"
#include "fleetwatt/jobs/replay.hpp"
#include "fleetwatt/jobs/warmup.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"

using namespace fleetwatt::jobs;
using namespace fleetwatt::runs;
using fleetwatt::test::error_of;
using fleetwatt::test::kJobs;

namespace {
const std::string kGenerated = R"([workload]
horizon_s = 86400
{}[workload.generator]
rate_per_hour = 100
diurnal_amplitude = 0.5
peak_hour = 14
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 8]
epochs = [2, 5]
dataset_samples = [1000, 3000]
[fleet]
nodes = 2
gpus_per_node = 8
)";

std::string generated(const std::string& extra = "") {
  std::string s = kGenerated;
  return s.replace(s.find("{}"), 2, extra);
}
}  // namespace

TEST_CASE("warmup_s is read as given and refused, located, when negative or not a number", "[warmup]") {
  CHECK_FALSE(parse_scenario(generated(), "s.toml").workload.warmup_s.has_value());
  CHECK(parse_scenario(generated("warmup_s = 7200\n"), "s.toml").workload.warmup_s == 7200.0);
  CHECK(parse_scenario(generated("warmup_s = 0\n"), "s.toml").workload.warmup_s == 0.0);
  CHECK(error_of(generated("warmup_s = -1\n")) ==
        "bad.toml:3:1: workload.warmup_s: must be zero or more, got -1");
  CHECK(error_of(generated("warmup_s = \"1 day\"\n"))
            .rfind("bad.toml:3:1: workload.warmup_s: expected a number", 0) == 0);
  CHECK(error_of(generated("warmup_s = inf\n")) ==
        "bad.toml:3:1: workload.warmup_s: must be a finite number");
}

TEST_CASE("the default warm-up is 2 x the longest generated run time, in whole hours, 0 for job lists",
          "[warmup]") {
  // A run time of 1000 s per epoch per 1000 samples on one GPU, 10 % less per extra GPU (any monotone
  // estimate would do): the longest job is 5 epochs x 3000 samples on 1 GPU = 15,000 s; 2 x = 30,000 s,
  // rounded up to 9 h = 32,400 s.
  const RuntimeEstimate estimate = [](const JobSpec& j) {
    return 1000.0 * j.epochs * (j.meta.dataset_samples / 1000.0) * (j.n_gpus == 1 ? 1.0 : 0.9);
  };
  const Scenario s = parse_scenario(generated(), "s.toml");
  CHECK(longest_generated_runtime_s(*s.workload.generator, estimate) == 15000.0);
  CHECK(default_warmup_s(s.workload, estimate) == 32400.0);
  // Explicit jobs, or a generator that starts after the window opens: no warm-up.
  CHECK(default_warmup_s(parse_scenario(kJobs, "s.toml").workload, estimate) == 0.0);
  Scenario later = s;
  later.workload.generator->start_s = 3600;
  CHECK(default_warmup_s(later.workload, estimate) == 0.0);
}

TEST_CASE("warm-up arrivals lie between -warmup and 0, in order, and leave the window's jobs as they were",
          "[warmup]") {
  Scenario s = parse_scenario(generated(), "s.toml");
  const auto without = build_workload(s.workload, s.seed);
  s.workload.warmup_s = 6 * 3600.0;
  const auto with = build_workload(s.workload, s.seed);
  REQUIRE(with.size() > without.size());
  const std::size_t warm = with.size() - without.size();
  for (std::size_t i = 0; i < with.size(); ++i) {
    if (i > 0) CHECK(with[i - 1].submit_s <= with[i].submit_s);
    if (i < warm) {
      CHECK(with[i].submit_s >= -6 * 3600.0);
      CHECK(with[i].submit_s < 0.0);
      // Ids after the window's: 1..n stay those of the run without a warm-up.
      CHECK(with[i].id == static_cast<std::int64_t>(without.size() + 1 + i));
    } else {
      const auto& a = with[i];
      const auto& b = without[i - warm];
      CHECK(a.id == b.id);
      CHECK(a.submit_s == b.submit_s);
      CHECK(a.n_gpus == b.n_gpus);
      CHECK(a.epochs == b.epochs);
      CHECK(a.meta.dataset_samples == b.meta.dataset_samples);
    }
  }
}

TEST_CASE("the warm-up continues the day/night cycle backwards in time", "[warmup]") {
  // 20 days before 0 at a mean of 100/h, amplitude 0.5, peak 14:00. Expected arrivals in the 2 hours
  // around a time of day c, per day: 100 x 2 + 100 x 0.5 x (24 / pi) x sin(pi / 12) x cos(2 pi (c - 14) / 24)
  // = 200 + 98.86 x cos(...): 298.86 around 14:00, 101.14 around 02:00; over 20 days 5,977 and 2,023
  // (Poisson: standard deviations 77 and 45; 4 of them allowed).
  const Scenario s = parse_scenario(generated(), "s.toml");
  const double days = 20;
  const auto jobs = generate_warmup_jobs(*s.workload.generator, 5, days * 86400.0, 1);
  double around_peak = 0, around_trough = 0;
  for (const auto& j : jobs) {
    const double hour = std::fmod(j.submit_s + 100 * 86400.0, 86400.0) / 3600.0;  // of day, in [0, 24)
    if (hour >= 13 && hour < 15) ++around_peak;
    if (hour >= 1 && hour < 3) ++around_trough;
  }
  const double k = 100.0 * 0.5 * (24.0 / std::numbers::pi) * std::sin(std::numbers::pi / 12);
  const double peak_expected = days * (200.0 + k), trough_expected = days * (200.0 - k);
  CHECK(std::fabs(around_peak - peak_expected) < 4 * std::sqrt(peak_expected));
  CHECK(std::fabs(around_trough - trough_expected) < 4 * std::sqrt(trough_expected));
  // And in total: 100/h over 20 whole days (the cosine integrates to 0), within 4 standard deviations.
  CHECK(std::fabs(static_cast<double>(jobs.size()) - 48000.0) < 4 * std::sqrt(48000.0));
}

TEST_CASE("a preset's explicit warm-up draws its arrivals before 0 and leaves the window's", "[warmup]") {
  const std::string text = R"([fleet]
nodes = 8
gpus_per_node = 8
[workload]
horizon_s = 86400
[workload.preset]
cluster = "pai"
rate_per_hour = 10
)";
  Scenario s = parse_scenario(text, "p.toml");
  CHECK(default_warmup_s(s.workload, {}) == 0.0);  // presets keep 0 unless told
  const auto without = build_scenario_workload(s.workload, s.seed,
                                               static_cast<std::uint32_t>(s.fleet.largest_group_gpus()), {});
  s.workload.warmup_s = 86400.0;
  const auto with = build_scenario_workload(s.workload, s.seed,
                                            static_cast<std::uint32_t>(s.fleet.largest_group_gpus()), {});
  std::vector<JobSpec> window, warm;
  for (const auto& j : with) (j.submit_s < 0 ? warm : window).push_back(j);
  REQUIRE(window.size() == without.size());
  for (std::size_t i = 0; i < window.size(); ++i) {
    CHECK(window[i].id == without[i].id);
    CHECK(window[i].submit_s == without[i].submit_s);
    CHECK(window[i].n_gpus == without[i].n_gpus);
  }
  // 10/h over the 24 h before 0: 240 expected (Poisson, 4 standard deviations allowed).
  CHECK(std::fabs(static_cast<double>(warm.size()) - 240.0) < 4 * std::sqrt(240.0));
  for (const auto& j : warm) CHECK(j.submit_s >= -86400.0);
}

TEST_CASE("warmup_arrivals is read and checked", "[warmup]") {
  CHECK_FALSE(parse_scenario(generated(), "s.toml").workload.periodic_warmup);
  CHECK_FALSE(
      parse_scenario(generated("warmup_arrivals = \"continued\"\n"), "s.toml").workload.periodic_warmup);
  CHECK(parse_scenario(generated("warmup_arrivals = \"periodic\"\n"), "s.toml").workload.periodic_warmup);
  CHECK(error_of(generated("warmup_arrivals = \"cyclic\"\n")) ==
        "bad.toml:3:1: workload.warmup_arrivals: 'cyclic' is not a warm-up: \"continued\" or \"periodic\"");
}

TEST_CASE("a periodic warm-up repeats the window's jobs shifted back by whole periods", "[warmup]") {
  // Window jobs at 10, 50, 90 s (given out of order), period 100 s, warm-up 150 s: the copies are
  // 50 - 200 = -150 (kept: the bound is inclusive), 90 - 200 = -110, then 10 - 100 = -90, -50, -10;
  // 10 - 200 = -190 is before -150 and dropped. A job submitted at the period or later is not repeated.
  std::vector<JobSpec> window(4);
  const double submit[] = {90, 10, 50, 100};
  for (std::size_t i = 0; i < window.size(); ++i) {
    window[i].id = static_cast<std::int64_t>(i + 1);
    window[i].submit_s = submit[i];
    window[i].n_gpus = static_cast<std::uint32_t>(i + 1);
  }
  window[0].deferrable = true;
  window[0].deadline_s = 400.0;
  const auto copies = periodic_warmup_jobs(window, 100.0, 150.0, 7);
  REQUIRE(copies.size() == 5);
  const double expected_submit[] = {-150, -110, -90, -50, -10};
  const std::uint32_t expected_gpus[] = {3, 1, 2, 3, 1};
  for (std::size_t i = 0; i < copies.size(); ++i) {
    CHECK(copies[i].submit_s == expected_submit[i]);
    CHECK(copies[i].n_gpus == expected_gpus[i]);
    CHECK(copies[i].id == static_cast<std::int64_t>(7 + i));
  }
  // The job at 90 s with its deadline at 400 s: copies at -110 (deadline 200) and -10 (deadline 300).
  CHECK(copies[1].deadline_s == 200.0);
  CHECK(copies[4].deadline_s == 300.0);
  CHECK(periodic_warmup_jobs(window, 100.0, 0.0, 1).empty());
}

TEST_CASE("a periodic warm-up lasts whole days by default and leaves the window's jobs as they were",
          "[warmup]") {
  // The estimate of the default-rule test: 2 x 15,000 s = 30,000 s, rounded up to a whole day (86,400 s)
  // whatever the window; 2 x 60,000 s (epochs x 4) = 120,000 s: two days.
  const RuntimeEstimate estimate = [](const JobSpec& j) {
    return 1000.0 * j.epochs * (j.meta.dataset_samples / 1000.0) * (j.n_gpus == 1 ? 1.0 : 0.9);
  };
  Scenario s = parse_scenario(generated("warmup_arrivals = \"periodic\"\n"), "s.toml");
  CHECK(default_warmup_s(s.workload, estimate) == 86400.0);
  s.workload.horizon_s = 30 * 86400.0;
  CHECK(default_warmup_s(s.workload, estimate) == 86400.0);
  s.workload.horizon_s = 86400.0;
  const RuntimeEstimate four_times = [&](const JobSpec& j) { return 4 * estimate(j); };
  CHECK(default_warmup_s(s.workload, four_times) == 2 * 86400.0);
  const auto without = build_workload(s.workload, s.seed);
  s.workload.warmup_s = 86400.0;
  const auto with = build_workload(s.workload, s.seed);
  // One whole day before 0: every window job once more, 86,400 s earlier, ids after the window's.
  REQUIRE(with.size() == 2 * without.size());
  for (std::size_t i = 0; i < without.size(); ++i) {
    CHECK(with[i].submit_s == without[i].submit_s - 86400.0);
    CHECK(with[i].n_gpus == without[i].n_gpus);
    CHECK(with[i].epochs == without[i].epochs);
    CHECK(with[i].id == static_cast<std::int64_t>(without.size() + 1 + i));
    CHECK(with[without.size() + i].id == without[i].id);
    CHECK(with[without.size() + i].submit_s == without[i].submit_s);
  }
}
