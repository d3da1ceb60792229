// Tests for the cluster-calibrated generator presets: generated GPU jobs must match each cluster's published
// aggregates (../shared/data/acmetrace/cluster_summary.csv, read here independently of the built-in preset
// figures) within 10 %: median and mean run time, mean GPUs per job, completed/cancelled/failed shares.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "fleetwatt/jobs/cluster_presets.hpp"
#include "fleetwatt/jobs/trace.hpp"
#include "test_support.hpp"

using namespace fleetwatt::jobs;

namespace {

// A stand-in predictor: 1,500 samples/s plus 20 s of checkpointing per epoch.
double fake_runtime(const JobSpec& j) {
  return j.epochs * (j.meta.dataset_samples / 1500.0 + 20.0);
}

std::map<std::string, std::map<std::string, std::string>> read_summary(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  auto split = [](const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string f;
    while (std::getline(ss, f, ',')) out.push_back(f);
    if (!s.empty() && s.back() == ',') out.emplace_back();
    return out;
  };
  const auto header = split(line);
  std::map<std::string, std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const auto f = split(line);
    std::string id = f[0];
    std::transform(id.begin(), id.end(), id.begin(), ::tolower);
    for (std::size_t i = 0; i < header.size() && i < f.size(); ++i) rows[id][header[i]] = f[i];
  }
  return rows;
}

void check_preset(const std::string& name) {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  const auto summary = read_summary(data / "acmetrace" / "cluster_summary.csv");
  const auto& row = summary.at(name);
  INFO("cluster " << name);
  // About 4,000 jobs: Poisson arrivals at 0.05 /s for 80,000 s.
  const auto jobs =
      generate_preset_jobs(cluster_preset(name), {0.05, 0.0, 80000.0, 0}, 42, 0, {}, fake_runtime);
  REQUIRE(jobs.size() > 3500);
  std::vector<double> runtime;
  double gpus = 0.0;
  std::size_t done = 0, cancelled = 0, failed = 0;
  for (const auto& j : jobs) {
    // What the engine will run: the predicted run time, cut at the job's limit.
    runtime.push_back(std::min(fake_runtime(j), j.limit_s.value_or(INFINITY)));
    gpus += j.n_gpus * j.gpu_fraction;
    done += j.status == JobStatus::completed;
    cancelled += j.status == JobStatus::cancelled;
    failed += j.status == JobStatus::failed;
    if (j.status != JobStatus::completed) CHECK(fake_runtime(j) > *j.limit_s);  // they end early
  }
  const double n = static_cast<double>(jobs.size());
  const double mean = std::accumulate(runtime.begin(), runtime.end(), 0.0) / n;
  CHECK(quantile(runtime, 0.5) == Approx(std::stod(row.at("med_run_time_gpu"))).epsilon(0.10));
  CHECK(mean == Approx(std::stod(row.at("avg_run_time_gpu"))).epsilon(0.10));
  CHECK(gpus / n == Approx(std::stod(row.at("avg_gpu_num"))).epsilon(0.10));
  if (!row.at("complete_rate_gpu").empty()) {
    CHECK(done / n == Approx(std::stod(row.at("complete_rate_gpu"))).epsilon(0.10));
    CHECK(cancelled / n == Approx(std::stod(row.at("cancel_rate_gpu"))).epsilon(0.10));
    CHECK(failed / n == Approx(std::stod(row.at("fail_rate_gpu"))).epsilon(0.10));
  }
}

}  // namespace

TEST_CASE("the philly preset matches Philly's published job aggregates", "[traces][shared]") {
  check_preset("philly");
}
TEST_CASE("the helios preset matches Helios's published job aggregates", "[traces][shared]") {
  check_preset("helios");
}
TEST_CASE("the pai preset matches PAI's published job aggregates", "[traces][shared]") {
  check_preset("pai");
}
TEST_CASE("the seren preset matches Seren's published job aggregates", "[traces][shared]") {
  check_preset("seren");
}
TEST_CASE("the kalos preset matches Kalos's published job aggregates", "[traces][shared]") {
  check_preset("kalos");
}

TEST_CASE("the capped lognormal mean has its closed form", "[traces]") {
  // Without a cap in reach, E[X] = exp(mu + sigma^2 / 2).
  CHECK(capped_lognormal_mean(1.0, 0.5, 1e12) == Approx(std::exp(1.125)).epsilon(1e-12));
  // With the cap at the median, half the mass sits at the cap: E = E[X; X < m] + m / 2, and
  // E[X; X < m] = exp(mu + s^2/2) Phi(-s) for cap m = exp(mu).
  const double s = 0.8, part = std::exp(s * s / 2) * 0.5 * std::erfc(s / std::sqrt(2.0));
  CHECK(capped_lognormal_mean(0.0, s, 1.0) == Approx(part + 0.5).epsilon(1e-12));
  // Standard normal quantiles: Phi^-1(0.975) = 1.959963984540054.
  CHECK(normal_quantile(0.975) == Approx(1.959963984540054).epsilon(1e-12));
  CHECK(normal_quantile(1e-6) == Approx(-4.753424308822899).epsilon(1e-10));
}

TEST_CASE("an unknown preset names the known ones", "[traces]") {
  try {
    (void)cluster_preset("venus");
    FAIL("unknown preset accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("philly") != std::string::npos);
  }
}
