// Fleet mode against exact mode on the same mid-size service (the bounds the docs state), and its own
// invariants: the series' energy, each request's order of times, cohorts waiting for a full batch.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fleetwatt/jobs/request_generator.hpp"
#include "fleetwatt/jobs/trace.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/sim/serving/service_fleet.hpp"

namespace fleetwatt::sim {
namespace {

ServiceConfig llama8b_on_h100(std::uint32_t replicas) {
  ServiceConfig c;
  c.replica.model = models::count_model("llama3_8b", 0);
  c.replica.gpu = models::find_gpu("h100-sxm");
  c.replicas = replicas;
  return c;
}

/// Half an hour at 8 requests/s (Poisson), prompts of 120-2,019 tokens and generations of 24-383 spread
/// evenly (examples/requests/chat-minute.csv's rule).
std::vector<jobs::Request> half_hour() {
  std::vector<jobs::Request> lengths;
  for (std::uint32_t i = 0; i < 60; ++i) {
    jobs::Request r;
    r.input_tokens = 120 + (i * 389) % 1900, r.output_tokens = 24 + (i * 157) % 360, r.record = i + 2;
    lengths.push_back(r);
  }
  jobs::RequestGeneratorConfig g;
  g.mean_rate_per_s = 8.0, g.horizon_s = 1800.0, g.seed = 1;
  return jobs::generate_requests(g, lengths);
}

double mean_latency(const ServiceRun& run) {
  double s = 0.0;
  for (const auto& r : run.requests) s += r.end_s - r.arrival_s;
  return s / double(run.requests.size());
}

double p99(std::vector<double> v) {
  return jobs::quantile(v, 0.99);
}

TEST_CASE("Fleet mode agrees with exact mode on a mid-size service within the stated bounds",
          "[sim][serving]") {
  const ServiceConfig c = llama8b_on_h100(4);
  const auto requests = half_hour();
  const ServiceRun exact = run_service(c, requests, "t.csv");
  const ServiceRun fleet = run_service_fleet(c, requests, "t.csv");
  REQUIRE(fleet.requests.size() == exact.requests.size());
  // Measured: energy +2.4 %, mean power +2.4 %, the 99th percentile of 1-s power +2.6 %, mean end-to-end
  // latency +1.5 % (fleet mode spreads no prompt queueing; its first tokens come 16 % sooner on average).
  CHECK(fleet.energy_J / exact.energy_J == Approx(1.0).margin(0.03));
  CHECK((fleet.energy_J / fleet.end_s) / (exact.energy_J / exact.end_s) == Approx(1.0).margin(0.03));
  CHECK(p99(fleet.power_W) / p99(exact.power_W) == Approx(1.0).margin(0.035));
  CHECK(mean_latency(fleet) / mean_latency(exact) == Approx(1.0).margin(0.025));
}

TEST_CASE("Fleet mode's series holds its energy, and every request's times are in order", "[sim][serving]") {
  const ServiceConfig c = llama8b_on_h100(2);
  const ServiceRun run = run_service_fleet(c, half_hour(), "t.csv");
  CHECK(std::accumulate(run.power_W.begin(), run.power_W.end(), 0.0) * c.interval_s ==
        Approx(run.energy_J).epsilon(1e-12));
  CHECK(run.end_s == double(run.power_W.size()) * c.interval_s);
  bool ordered = true;
  for (const auto& r : run.requests)
    ordered = ordered && r.arrival_s < r.first_token_s && r.first_token_s <= r.end_s && r.end_s <= run.end_s;
  CHECK(ordered);
}

TEST_CASE("A cohort waits while the batch is full", "[sim][serving]") {
  ServiceConfig c = llama8b_on_h100(1);
  c.max_batch = 1;
  // Two requests in two intervals; a batch of one holds the second until the first ends (about 200 tokens
  // at about 7 ms each: its second interval).
  std::vector<jobs::Request> r(2);
  r[0].arrival_s = 0.1, r[0].input_tokens = 100, r[0].output_tokens = 200;
  r[1].arrival_s = 1.2, r[1].input_tokens = 100, r[1].output_tokens = 5;
  const ServiceRun run = run_service_fleet(c, r, "t.csv");
  CHECK(run.requests[0].end_s > 1.2);
  CHECK(run.requests[1].first_token_s >= std::floor(run.requests[0].end_s) + 1.0);
  CHECK(run.requests[1].first_token_s < std::floor(run.requests[0].end_s) + 1.5);
}

}  // namespace
}  // namespace fleetwatt::sim
