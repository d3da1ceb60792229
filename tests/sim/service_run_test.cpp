// A serving service played request by request against hand sums of its iterations (each timed by the
// serving iteration model): one request's prompt and tokens, a second waiting for a batch of one, a long
// prompt in two chunks, round-robin dispatch, the KV cache's capacity by hand, the power series' energy,
// and the refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <stdexcept>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/sim/serving/service_run.hpp"

namespace fleetwatt::sim {
namespace {

ServiceConfig small_service() {
  jobs::ModelShape s;
  s.layers = 2, s.hidden = 1024, s.heads = 8, s.kv_heads = 8, s.ffn_hidden = 4096, s.vocab = 32000;
  ServiceConfig c;
  c.replica.model = models::decoder_from_shape(s, 2048, "small");
  c.replica.gpu = models::find_gpu("a100-sxm-80gb");
  c.replica.tp = 1;
  return c;
}

jobs::Request request(double at, std::uint32_t in, std::uint32_t out, std::uint32_t record = 2) {
  jobs::Request r;
  r.arrival_s = at, r.input_tokens = in, r.output_tokens = out, r.record = record;
  return r;
}

models::IterationCost prefill(const ServiceConfig& c, double tokens, double done, bool last) {
  models::IterationBatch b;
  b.prefill_tokens = tokens;
  b.prefill_sequences = last ? 1.0 : 0.0;
  b.prefill_attended_keys = tokens * done + tokens * (tokens + 1.0) / 2.0;
  return models::serving_iteration(c.replica, b, c.constants);
}

models::IterationCost decode(const ServiceConfig& c, double sequences, double context) {
  models::IterationBatch b;
  b.decode_sequences = sequences, b.decode_context_tokens = context;
  return models::serving_iteration(c.replica, b, c.constants);
}

double floor_W(const ServiceConfig& c) {
  return models::resident_floor(c.replica.gpu, models::default_predictor_fit().power);
}

TEST_CASE("One request: its prompt, then a token an iteration at a growing context", "[sim][serving]") {
  const ServiceConfig c = small_service();
  const ServiceRun run = run_service(c, {request(0.5, 100, 3)}, "t.csv");
  const auto p = prefill(c, 100, 0, true), d1 = decode(c, 1, 101), d2 = decode(c, 1, 102);
  REQUIRE(run.requests.size() == 1);
  CHECK(run.requests[0].first_token_s == Approx(0.5 + p.time_s).epsilon(1e-12));
  CHECK(run.requests[0].end_s == Approx(0.5 + p.time_s + d1.time_s + d2.time_s).epsilon(1e-12));
  CHECK(run.iterations == 3);
  // The floor until the arrival, then the iterations' draws.
  const double energy =
      0.5 * floor_W(c) + p.time_s * p.power_W + d1.time_s * d1.power_W + d2.time_s * d2.power_W;
  CHECK(run.energy_J == Approx(energy).epsilon(1e-12));
  // The series (one interval of 1 s, ending at end_s) holds the same energy.
  REQUIRE(run.power_W.size() == 1);
  CHECK(run.power_W[0] * run.end_s == Approx(run.energy_J).epsilon(1e-12));
}

TEST_CASE("A batch of one holds the second request until the first ends", "[sim][serving]") {
  ServiceConfig c = small_service();
  c.max_batch = 1;
  const ServiceRun run = run_service(c, {request(0, 100, 2), request(0, 50, 1, 3)}, "t.csv");
  const auto p1 = prefill(c, 100, 0, true), d1 = decode(c, 1, 101), p2 = prefill(c, 50, 0, true);
  CHECK(run.requests[0].end_s == Approx(p1.time_s + d1.time_s).epsilon(1e-12));
  // One output token: its prompt's iteration emits it, and the request ends there.
  CHECK(run.requests[1].first_token_s == Approx(p1.time_s + d1.time_s + p2.time_s).epsilon(1e-12));
  CHECK(run.requests[1].end_s == run.requests[1].first_token_s);
}

TEST_CASE("The load series: admissions, waiting and batch time, prompt and later tokens by hand",
          "[sim][serving]") {
  ServiceConfig c = small_service();
  c.max_batch = 1;
  c.interval_s = 0.01;
  // The second request waits, from its arrival, until the first ends; each runs from its admission to its
  // end.
  const ServiceRun run = run_service(c, {request(0, 100, 40), request(0.002, 50, 30, 3)}, "t.csv");
  const ServedRequest &a = run.requests[0], &b = run.requests[1];
  REQUIRE(a.end_s > 0.002);
  const auto sum = [&](double IntervalLoad::*field) {
    double x = 0.0;
    for (const IntervalLoad& l : run.load) x += l.*field;
    return x;
  };
  REQUIRE(run.load.size() == run.power_W.size());
  CHECK(sum(&IntervalLoad::admitted) == 2.0);
  CHECK(sum(&IntervalLoad::queued_s) == Approx(a.end_s - 0.002).epsilon(1e-9));
  CHECK(sum(&IntervalLoad::running_s) == Approx(a.end_s + (b.end_s - a.end_s)).epsilon(1e-9));
  CHECK(sum(&IntervalLoad::prefill_tokens) == Approx(150.0).epsilon(1e-9));
  CHECK(sum(&IntervalLoad::decode_tokens) == Approx(39.0 + 29.0).epsilon(1e-9));
  // The first admission at 0, the second when the first ends; the waiting lies in the intervals it spans.
  CHECK(run.load[0].admitted == 1.0);
  const auto k = static_cast<std::size_t>(std::floor(a.end_s / c.interval_s));
  CHECK(run.load[k].admitted == 1.0);
  CHECK(run.load[0].queued_s == Approx(std::min(a.end_s, c.interval_s) - 0.002).epsilon(1e-9));
  // The first prompt's tokens spread over its iteration, all in the first interval.
  const auto p = prefill(c, 100, 0, true);
  REQUIRE(p.time_s < c.interval_s);
  CHECK(run.load[0].prefill_tokens == Approx(100.0).epsilon(1e-9));
}

/// A prompt arriving while another request's first iteration runs: fcfs runs it beside that request's next
/// token, prefill priority alone while the decode waits.
std::vector<jobs::Request> second_prompt_arrives() {
  return {request(0, 100, 3), request(0.0001, 50, 2, 3)};
}

TEST_CASE("First come first served: a prompt rides beside the running decodes", "[sim][serving]") {
  const ServiceConfig c = small_service();
  const ServiceRun run = run_service(c, second_prompt_arrives(), "t.csv");
  const auto p1 = prefill(c, 100, 0, true);
  models::IterationBatch both;  // A's second token and B's whole prompt
  both.decode_sequences = 1, both.decode_context_tokens = 101;
  both.prefill_tokens = 50, both.prefill_sequences = 1, both.prefill_attended_keys = 50.0 * 51.0 / 2.0;
  const auto mixed = models::serving_iteration(c.replica, both, c.constants);
  const auto d = decode(c, 2, 102 + 51);  // A's third token, B's second
  CHECK(run.requests[1].first_token_s == Approx(p1.time_s + mixed.time_s).epsilon(1e-12));
  CHECK(run.requests[0].end_s == Approx(p1.time_s + mixed.time_s + d.time_s).epsilon(1e-12));
  CHECK(run.requests[1].end_s == run.requests[0].end_s);
  CHECK(run.iterations == 3);
}

TEST_CASE("Prefill priority: a prompt runs alone while the decodes wait", "[sim][serving]") {
  ServiceConfig c = small_service();
  c.scheduling = ServiceScheduling::prefill_priority;
  const ServiceRun run = run_service(c, second_prompt_arrives(), "t.csv");
  const auto p1 = prefill(c, 100, 0, true), p2 = prefill(c, 50, 0, true);
  const auto d2 = decode(c, 2, 101 + 51);  // A's second token, B's second (its last)
  const auto d1 = decode(c, 1, 102);       // A's third
  CHECK(run.requests[0].first_token_s == Approx(p1.time_s).epsilon(1e-12));
  CHECK(run.requests[1].first_token_s == Approx(p1.time_s + p2.time_s).epsilon(1e-12));
  CHECK(run.requests[1].end_s == Approx(p1.time_s + p2.time_s + d2.time_s).epsilon(1e-12));
  CHECK(run.requests[0].end_s == Approx(p1.time_s + p2.time_s + d2.time_s + d1.time_s).epsilon(1e-12));
  CHECK(run.iterations == 4);
  const double energy =
      p1.time_s * p1.power_W + p2.time_s * p2.power_W + d2.time_s * d2.power_W + d1.time_s * d1.power_W;
  CHECK(run.energy_J == Approx(energy).epsilon(1e-12));
}

TEST_CASE("Disaggregated pools: the prompt on one replica, its keys and values moved, the rest on another",
          "[sim][serving]") {
  ServiceConfig c = small_service();
  c.replicas = 2;
  c.scheduling = ServiceScheduling::disaggregated;
  REQUIRE(prefill_pool(c) == 1);
  const ServiceRun run = run_service(c, {request(0.5, 100, 3)}, "t.csv");
  // 2 layers x keys and values x 8 heads x 128 wide x 2 bytes = 8,192 bytes a token, over 50 GB/s.
  const double move = 101.0 * 8192.0 / 50e9;
  CHECK(kv_transfer_s(c, 101.0) == Approx(move).epsilon(1e-12));
  const auto p = prefill(c, 100, 0, true), d1 = decode(c, 1, 101), d2 = decode(c, 1, 102);
  const ServedRequest& r = run.requests[0];
  CHECK(r.first_token_s == Approx(0.5 + p.time_s).epsilon(1e-12));
  CHECK(r.end_s == Approx(0.5 + p.time_s + move + d1.time_s + d2.time_s).epsilon(1e-12));
  CHECK(r.replica == 1);
  CHECK(run.iterations == 3);
  // Both replicas at their floor but for the prompt's iteration on the first and the decodes on the second.
  const double busy = p.time_s * (p.power_W - floor_W(c)) + d1.time_s * (d1.power_W - floor_W(c)) +
                      d2.time_s * (d2.power_W - floor_W(c));
  CHECK(run.energy_J == Approx(2.0 * floor_W(c) * run.end_s + busy).epsilon(1e-12));
  // The prompt's tokens and the later ones counted once; waiting: none; in a batch: the prompt's iteration
  // and the decodes (the move is in neither).
  double prefill = 0.0, decoded = 0.0, admitted = 0.0, queued = 0.0, running = 0.0;
  for (const IntervalLoad& l : run.load)
    prefill += l.prefill_tokens, decoded += l.decode_tokens, admitted += l.admitted, queued += l.queued_s,
        running += l.running_s;
  CHECK(prefill == Approx(100.0).epsilon(1e-12));
  CHECK(decoded == Approx(2.0).epsilon(1e-12));
  CHECK(admitted == 1.0);
  CHECK(queued == Approx(0.0).margin(1e-15));
  CHECK(running == Approx(p.time_s + d1.time_s + d2.time_s).epsilon(1e-9));
}

TEST_CASE("Prompts beyond an iteration's budget wait their turn and emit nothing meanwhile",
          "[sim][serving]") {
  ServiceConfig c = small_service();
  c.max_batched_tokens = 50;
  // Three prompts of 60 tokens at once, one output token each: 50 of the first; its last 10 and 40 of the
  // second; the second's last 20 and 30 of the third; the third's last 30. Each request's token comes when
  // its prompt ends, the third's after four iterations (none while it waits for its turn).
  const ServiceRun run =
      run_service(c, {request(0, 60, 1), request(0, 60, 1, 3), request(0, 60, 1, 4)}, "t.csv");
  const auto cost = [&](std::vector<std::pair<double, double>> chunks, double ending) {
    models::IterationBatch b;  // chunks: (tokens, tokens done before)
    for (const auto& [n, done] : chunks)
      b.prefill_tokens += n, b.prefill_attended_keys += n * done + n * (n + 1.0) / 2.0;
    b.prefill_sequences = ending;
    return models::serving_iteration(c.replica, b, c.constants).time_s;
  };
  const double t1 = cost({{50, 0}}, 0), t2 = cost({{10, 50}, {40, 0}}, 1), t3 = cost({{20, 40}, {30, 0}}, 1),
               t4 = cost({{30, 30}}, 1);
  CHECK(run.iterations == 4);
  CHECK(run.requests[0].end_s == Approx(t1 + t2).epsilon(1e-12));
  CHECK(run.requests[1].end_s == Approx(t1 + t2 + t3).epsilon(1e-12));
  CHECK(run.requests[2].end_s == Approx(t1 + t2 + t3 + t4).epsilon(1e-12));
  for (const auto& r : run.requests) CHECK(r.first_token_s == r.end_s);
}

TEST_CASE("A prompt longer than an iteration's tokens runs in chunks, the last one emitting",
          "[sim][serving]") {
  ServiceConfig c = small_service();
  c.max_batched_tokens = 8192;
  const ServiceRun run = run_service(c, {request(0, 10000, 1)}, "t.csv");
  const auto a = prefill(c, 8192, 0, false), b = prefill(c, 1808, 8192, true);
  CHECK(run.iterations == 2);
  CHECK(run.requests[0].first_token_s == Approx(a.time_s + b.time_s).epsilon(1e-12));
}

TEST_CASE("Requests go to the replicas in turn, an idle replica holds the floor to the end",
          "[sim][serving]") {
  ServiceConfig c = small_service();
  c.replicas = 2;
  const ServiceRun run = run_service(
      c, {request(0, 10, 2), request(0, 10, 2, 3), request(0.001, 10, 2, 4), request(5, 10, 2, 5)}, "t.csv");
  CHECK(run.requests[0].replica == 0);
  CHECK(run.requests[1].replica == 1);
  CHECK(run.requests[2].replica == 0);
  CHECK(run.requests[3].replica == 1);
  // Replica 1 ends last: replica 0 holds the floor from its last request to then.
  const auto p = prefill(c, 10, 0, true), d = decode(c, 1, 11);
  CHECK(run.end_s == Approx(5 + p.time_s + d.time_s).epsilon(1e-12));
  double series = 0.0;
  for (std::size_t i = 0; i < run.power_W.size(); ++i)
    series += run.power_W[i] * std::min(c.interval_s, run.end_s - double(i) * c.interval_s);
  CHECK(series == Approx(run.energy_J).epsilon(1e-12));
  CHECK(run.power_W.size() == 6);
}

TEST_CASE("A replica of two pipeline stages serves as two engines, each request's pass through both",
          "[sim][serving]") {
  ServiceConfig c = small_service();
  c.replica.pp = 2;
  // Two requests at once go to the replica's two engines, each running its own batch: every iteration one
  // pass through both stages, the hand-over between them included.
  const ServiceRun run = run_service(c, {request(0, 100, 3), request(0, 100, 3, 3)}, "t.csv");
  const auto p = prefill(c, 100, 0, true), d1 = decode(c, 1, 101), d2 = decode(c, 1, 102);
  ServiceConfig flat = small_service();
  const auto p1 = prefill(flat, 100, 0, true);
  CHECK(p.time_s - p1.time_s == Approx(p.comm_s).epsilon(1e-12));  // one stage: no all-reduce, a hand-over
  for (std::size_t i : {0, 1}) {
    CHECK(run.requests[i].replica == 0);
    CHECK(run.requests[i].first_token_s == Approx(p.time_s).epsilon(1e-12));
    CHECK(run.requests[i].end_s == Approx(p.time_s + d1.time_s + d2.time_s).epsilon(1e-12));
  }
  // Each engine draws as its stage's tp GPUs at its iterations' power (each of the two GPUs works for both
  // engines in turn): two engines' worth of three iterations.
  CHECK(run.iterations == 6);
  CHECK(run.energy_J ==
        Approx(2 * (p.power_W * p.time_s + d1.power_W * d1.time_s + d2.power_W * d2.time_s)).epsilon(1e-12));
  // Two replicas of one GPU each run the same two requests without the hand-over, at the same energy but
  // for it.
  flat.replicas = 2;
  const ServiceRun two = run_service(flat, {request(0, 100, 3), request(0, 100, 3, 3)}, "t.csv");
  CHECK(two.requests[1].replica == 1);
  CHECK(run.end_s - two.end_s == Approx(p.comm_s + d1.comm_s + d2.comm_s).epsilon(1e-9));
}

TEST_CASE("The KV cache holds what the memory leaves beside the weights", "[sim][serving]") {
  ServiceConfig c;
  c.replica.model = models::count_model("llama2_70b", 0);
  c.replica.gpu = models::find_gpu("a100-sxm-80gb");
  c.replica.tp = 4;
  const models::ModelCount& m = c.replica.model;
  // 4 x 80 GiB x 0.9 less 2 bytes a parameter, over 80 layers x K and V x 8 kv heads x 128 x 2 bytes.
  const double expected =
      std::floor((4 * 80.0 * 1073741824.0 * 0.9 - 2.0 * m.params) / (80 * 2 * 8 * 128 * 2.0));
  CHECK(kv_capacity_tokens(c) == expected);
  // Two stages of tp 4: the weights spread over eight GPUs, the cache left beside them shared by the two
  // engines (vLLM gives each virtual engine half the blocks).
  c.replica.pp = 2;
  CHECK(kv_capacity_tokens(c) ==
        std::floor((8 * 80.0 * 1073741824.0 * 0.9 - 2.0 * m.params) / 2.0 / (80 * 2 * 8 * 128 * 2.0)));
  CHECK(serving_engines(c) == 2);
  CHECK(service_gpus(c) == 8);
  c.replica.tp = 1, c.replica.pp = 1;
  CHECK_THROWS_WITH(kv_capacity_tokens(c), Catch::Contains("do not fit"));
  // Llama-2-70B fits two 80 GB A100s only as two stages of one.
  c.replica.pp = 2;
  CHECK(kv_capacity_tokens(c) > 0.0);
  ServiceConfig small = small_service();
  small.memory_fraction = 1.5;
  CHECK_THROWS_AS(kv_capacity_tokens(small), std::invalid_argument);
  // A request bigger than the cache is refused at its record.
  small = small_service();
  const double capacity = kv_capacity_tokens(small);
  try {
    (void)run_service(small, {request(0, static_cast<std::uint32_t>(capacity), 1, 7)}, "t.csv");
    FAIL("no error");
  } catch (const core::TraceFormatError& e) {
    CHECK(std::string(e.what()).find("t.csv:7") != std::string::npos);
  }
}

}  // namespace
}  // namespace fleetwatt::sim
