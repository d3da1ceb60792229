// [[workload.service]]: an LLM service beside training on one campus. Its GPUs are held from jobs, its draw
// goes through the one power ledger (GPU, node, IT and facility energy balance against the service's own
// series), its series reach /services in the result file, and every misuse is one located error.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>

#include "fleetwatt/results/hdf5/result_reader.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/run_to_file.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/runs/service_series.hpp"
#include "scenario_test_support.hpp"
#include "test_support.hpp"

using namespace fleetwatt;

namespace {

std::string trace_path() {
  return (test::source_dir() / "examples" / "requests" / "chat-minute.csv").string();
}

/// Two node groups: ResNet-50 training on the A100s, an 8B chat model on the H100s (when `service`).
std::string campus(bool service, const std::string& service_keys = "") {
  std::string s = R"(seed = 3
[fleet]
node_base_w = 500
node_load_w_per_gpu_w = 0.1
[[fleet.group]]
name = "train"
nodes = 2
gpus_per_node = 8
gpu = "a100-sxm-80gb"
[[fleet.group]]
name = "serve"
nodes = 1
gpus_per_node = 8
gpu = "h100-sxm"
[facility]
pue = 1.2
[workload]
horizon_s = 600
[[workload.jobs]]
id = 1
model = "resnet50"
n_gpus = 8
dataset_samples = 1281167
batch_size = 256
epochs = 2
)";
  if (service)
    s += "[[workload.service]]\nname = \"chat\"\ngroup = \"serve\"\nmodel = \"llama3_8b\"\ntrace = \"" +
         trace_path() + "\"\narrival_rate_per_s = 20\n" + service_keys;
  return s;
}

struct Energies {
  double gpu_J, it_J, facility_J;
};

Energies run_energies(runs::PreparedRun& r) {
  const auto engine = runs::make_engine(r);
  engine->run();
  return {engine->ledger().gpu_energy_J(), engine->ledger().it_energy_J(),
          engine->ledger().facility_energy_J()};
}

/// The first TOML block after `marker` in docs/scenario.md, prepared over `horizon_s` from a scenario file
/// in a folder beside ../requests/azure-conv-10min.csv, the trace the page's examples name.
runs::PreparedRun prepare_docs_example(const std::string& marker, int horizon_s) {
  std::ifstream in(test::source_dir() / "docs" / "scenario.md");
  REQUIRE(in);
  const std::string page{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const auto heading = page.find(marker);
  REQUIRE(heading != std::string::npos);
  const auto start = page.find("```toml\n", heading) + 8;
  const std::string toml = page.substr(start, page.find("```\n", start) - start);
  const test::TempDir dir;
  std::filesystem::create_directories(dir / "scenarios");
  std::filesystem::create_directories(dir / "requests");
  std::filesystem::copy_file(test::source_dir() / "examples/requests/azure-conv-10min.csv",
                             dir / "requests/azure-conv-10min.csv");
  return runs::prepare_run(runs::load_scenario(dir.write(
      "scenarios/example.toml", toml + "[workload]\nhorizon_s = " + std::to_string(horizon_s) + "\n")));
}

}  // namespace

TEST_CASE("a service's draw reaches the GPU, IT and facility energy through the one ledger",
          "[scenario][service]") {
  auto with = runs::prepare_run(runs::parse_scenario(campus(true), "s.toml"));
  auto without = runs::prepare_run(runs::parse_scenario(campus(false), "s.toml"));
  REQUIRE(with.services.size() == 1);
  REQUIRE(with.setup.services.size() == 1);
  CHECK(with.setup.services[0].gpus == 8);  // eight tp-1 replicas fill the group
  const results::ServiceRecord& record = with.services[0].record;
  REQUIRE(record.power_W.size() == 600);
  const Energies a = run_energies(with), b = run_energies(without);
  // Without the service its eight H100s idle at the preset's 70 W for the 600 s; with it they draw the
  // service's series. The training job is the same in both runs.
  const double idle_J = 8 * 70.0 * 600.0;
  const double service_gpu_J = record.energy_J - idle_J;
  CHECK(record.energy_J > 2.0 * idle_J);  // the service works: well above idle
  CHECK(a.gpu_J - b.gpu_J == Approx(service_gpu_J).epsilon(1e-9));
  // A node draws its base plus 1.1 x its GPUs; the facility 1.2 x IT.
  CHECK(a.it_J - b.it_J == Approx(1.1 * service_gpu_J).epsilon(1e-9));
  CHECK(a.facility_J == Approx(1.2 * a.it_J).epsilon(1e-12));
  // The record's energy is its series summed (1-s intervals), and its played run's over the same span.
  CHECK(record.energy_J == Approx(std::accumulate(record.power_W.begin(), record.power_W.end(), 0.0)));
}

TEST_CASE("no job is placed on a service's GPUs", "[scenario][service]") {
  // One group of 16 H100s: the service holds the first 8 (one tp-8 replica), so of two 8-GPU jobs one runs
  // and one waits.
  const std::string text = R"([fleet]
nodes = 2
gpus_per_node = 8
gpu = "h100-sxm"
[workload]
horizon_s = 300
[[workload.jobs]]
id = 1
model = "resnet50"
n_gpus = 8
dataset_samples = 1281167
batch_size = 256
epochs = 90
[[workload.jobs]]
id = 2
model = "resnet50"
n_gpus = 8
dataset_samples = 1281167
batch_size = 256
epochs = 90
[[workload.service]]
model = "llama3_8b"
tp = 8
replicas = 1
trace = ")" + trace_path() +
                           "\"\n";
  auto r = runs::prepare_run(runs::parse_scenario(text, "s.toml"));
  const auto engine = runs::make_engine(r);
  engine->run();
  for (sim::GpuIndex g = 0; g < 8; ++g) CHECK(engine->cluster().owner(g) == sim::kServiceOwner);
  int running = 0, queued = 0;
  for (const auto& j : engine->jobs()) {
    running += j.state == sim::JobState::running;
    queued += j.state == sim::JobState::queued;
  }
  CHECK(running == 1);
  CHECK(queued == 1);
  for (sim::GpuIndex g = 8; g < 16; ++g) CHECK(engine->cluster().owner(g) != sim::kServiceOwner);
}

TEST_CASE("a service of pipeline stages fills its group with replicas of tp x pp GPUs",
          "[scenario][service]") {
  const test::TempDir dir;
  auto r = runs::prepare_run(runs::parse_scenario(campus(true, "pp = 2\nmode = \"exact\"\n"), "s.toml"));
  const auto out = dir / "staged.h5";
  const runs::RunOutcome done = runs::run_to_file(r, out, {});
  REQUIRE(done.services.size() == 1);
  const results::ResultReader f(out);
  // The group's eight H100s as four replicas of two stages of one GPU: eight engines.
  CHECK(f.integer_attribute("/services/chat", "pp") == 2);
  CHECK(f.integer_attribute("/services/chat", "replicas") == 4);
  CHECK(f.integer_attribute("/services/chat", "gpus") == 8);
  const auto occupancy = f.doubles("/services/chat/batch_occupancy");
  const auto running = f.doubles("/services/chat/running");
  // Each replica's slots are pp engines' batches: running / (4 x 2 x 256).
  for (std::size_t k = 0; k < occupancy.size(); k += 97)
    CHECK(occupancy[k] == Approx(running[k] / (4.0 * 2 * 256)).margin(1e-12));
}

TEST_CASE("a service's series are written under /services with units", "[scenario][service]") {
  const test::TempDir dir;
  auto r = runs::prepare_run(runs::parse_scenario(campus(true), "s.toml"));
  const auto out = dir / "campus.h5";
  const runs::RunOutcome done = runs::run_to_file(r, out, {});
  REQUIRE(done.services.size() == 1);
  const results::ResultReader f(out);
  const auto power = f.doubles("/services/chat/power_W");
  REQUIRE(power.size() == 600);
  CHECK(f.string_attribute("/services/chat/power_W", "units") == "W");
  CHECK(f.string_attribute("/services/chat/arrivals", "units") == "requests per interval");
  const auto completions = f.integers("/services/chat/completions");
  const auto arrivals = f.integers("/services/chat/arrivals");
  const auto served = std::accumulate(completions.begin(), completions.end(), std::int64_t{0});
  CHECK(f.integers("/services/chat/requests_served").at(0) == served);
  // About 20 requests a second arrive over the 600 s (a Poisson count: within 5 standard deviations).
  const auto arrived = std::accumulate(arrivals.begin(), arrivals.end(), std::int64_t{0});
  CHECK(std::abs(double(arrived) - 12000.0) < 5.0 * std::sqrt(12000.0));
  CHECK(served <= arrived);
  CHECK(served > arrived - 200);  // a light load: requests end within seconds
  CHECK(f.doubles("/services/chat/energy_J").at(0) ==
        Approx(std::accumulate(power.begin(), power.end(), 0.0)));
  CHECK(f.string_attribute("/services/chat", "model") == "llama3_8b");
  CHECK(f.integer_attribute("/services/chat", "gpus") == 8);
  // The load series (fleet mode): every arrival admitted in its interval (a light load), the occupancy the
  // batch over the replicas' slots, and the tokens generated those of the requests served but their first,
  // within the requests still running at the horizon (a few seconds' worth).
  CHECK(f.string_attribute("/services/chat/batch_occupancy", "units") == "1");
  CHECK(f.string_attribute("/services/chat/decode_tokens_per_s", "units") == "tokens/s");
  CHECK(f.string_attribute("/services/chat/queued", "units") == "requests");
  CHECK(f.integers("/services/chat/admitted") == arrivals);
  const auto running = f.doubles("/services/chat/running"),
             occupancy = f.doubles("/services/chat/batch_occupancy");
  const auto active = f.doubles("/services/chat/replicas_active");
  const auto max_batch = double(f.integer_attribute("/services/chat", "max_batch"));
  bool occupied = true;
  for (std::size_t k = 0; k < running.size(); ++k)
    occupied = occupied && occupancy[k] == Approx(running[k] / (active[k] * max_batch)).epsilon(1e-12);
  CHECK(occupied);
  const auto decode = f.doubles("/services/chat/decode_tokens_per_s");
  const double generated = std::accumulate(decode.begin(), decode.end(), 0.0);
  const double later = double(f.integers("/services/chat/output_tokens").at(0)) - double(served);
  CHECK(generated >= later * 0.999);
  CHECK(generated < later * 1.01);
}

TEST_CASE("a service's misuse is one located error", "[scenario][service]") {
  // Lines: the service table starts on line 26 (name 27, group 28, model 29, trace 30, rate 31).
  CHECK(test::error_of(campus(true, "batch = 3\n"))
            .rfind("bad.toml:32:1: workload.service[0].batch: unknown key", 0) == 0);
  CHECK(test::error_of(campus(true, "replicas = 9\n"))
            .rfind("bad.toml:32:1: workload.service[0].replicas: 9 replicas of 1 GPUs need 9 GPUs; the group "
                   "has 8",
                   0) == 0);
  std::string other_group = campus(true);
  other_group.replace(other_group.find("group = \"serve\""), 15, "group = \"gpu\"");
  CHECK(test::error_of(other_group)
            .rfind("bad.toml:28:1: workload.service[0].group: no [[fleet.group]] named 'gpu'", 0) == 0);
  CHECK(test::error_of(campus(true, "hourly = [1, 2]\n"))
            .rfind("bad.toml:32:1: workload.service[0].hourly: needs 24 values", 0) == 0);
  CHECK(test::error_of(campus(true, "hourly = \"fit\"\n"))
            .rfind("bad.toml:32:1: workload.service[0].hourly: 'fit' is neither 24 numbers nor \"trace\"",
                   0) == 0);
  // The curve measured on the service's trace needs a day of it; this one holds ten minutes.
  CHECK(test::prepare_error_of(campus(true, "hourly = \"trace\"\n"))
            .rfind("bad.toml:32:1: workload.service[0].hourly: the trace covers 0.", 0) == 0);
  CHECK(test::error_of(campus(true, "mode = \"fast\"\n"))
            .rfind("bad.toml:32:1: workload.service[0].mode:", 0) == 0);
  CHECK(test::error_of(campus(true, "scheduler = \"lifo\"\n"))
            .rfind("bad.toml:32:1: workload.service[0].scheduler: unknown service scheduler 'lifo' (known: "
                   "fcfs, prefill_priority, disaggregated)",
                   0) == 0);
  CHECK(test::error_of(campus(true, "prefill_replicas = 2\n"))
            .rfind("bad.toml:32:1: workload.service[0].prefill_replicas: sets the disaggregated scheduler's "
                   "pools: give scheduler = \"disaggregated\" too",
                   0) == 0);
  CHECK(test::prepare_error_of(campus(true, "scheduler = \"disaggregated\"\ntarget_utilisation = 0.5\n"))
            .rfind("bad.toml:33:1: workload.service[0].target_utilisation: autoscaling does not park "
                   "disaggregated pools' replicas",
                   0) == 0);
  CHECK(
      test::error_of(campus(true, "pp = 2\ntarget_utilisation = 0.5\n"))
          .rfind(
              "bad.toml:33:1: workload.service[0].target_utilisation: autoscaling parks whole replicas, not "
              "pipeline stages (pp 1)",
              0) == 0);
  CHECK(test::prepare_error_of(campus(true, "pp = 9\nreplicas = 1\n"))
            .rfind("bad.toml:33:1: workload.service[0].replicas: 1 replicas of 9 GPUs need 9 GPUs; the group "
                   "has 8",
                   0) == 0);
  CHECK(test::prepare_error_of(
            campus(true, "scheduler = \"disaggregated\"\nmode = \"exact\"\nprefill_replicas = 8\n"))
            .rfind("bad.toml:34:1: workload.service[0].prefill_replicas: 8 leaves none of the 8 replicas to "
                   "decode",
                   0) == 0);
  // Found when the service is prepared, still at its key: a model whose weights do not fit one H100.
  std::string big = campus(true, "tp = 1\n");
  big.replace(big.find("llama3_8b"), 9, "llama2_70b");
  CHECK(test::prepare_error_of(big).rfind("bad.toml:29:1: workload.service[0].model:", 0) == 0);
  std::string unknown = campus(true);
  unknown.replace(unknown.find("llama3_8b"), 9, "gpt-9");
  CHECK(test::prepare_error_of(unknown).rfind(
            "bad.toml:29:1: workload.service[0].model: unknown model 'gpt-9'", 0) == 0);
}

TEST_CASE("docs/scenario.md's service example runs, its GPU energy the service's",
          "[scenario][service][docs]") {
  auto r = prepare_docs_example("## LLM services", 7200);
  REQUIRE(r.services.size() == 1);
  const results::ServiceRecord& record = r.services[0].record;
  CHECK(record.gpus == 128);
  CHECK(record.replicas == 32);
  const auto engine = runs::make_engine(r);
  engine->run();
  CHECK(engine->ledger().gpu_energy_J() == Approx(record.energy_J).epsilon(1e-9));
  // At midnight's rate (2 of the curve's mean 5.35: 37 requests/s) a few replicas serve, at least the 4 kept.
  CHECK(*std::min_element(record.replicas_active.begin(), record.replicas_active.end()) >= 4.0);
  CHECK(*std::max_element(record.replicas_active.begin(), record.replicas_active.end()) < 32.0);
}

TEST_CASE("absorbing's keys are checked where they are written", "[scenario][service]") {
  CHECK(test::error_of(campus(true, "absorb_gain = 0.5\n"))
            .rfind("bad.toml:32:1: workload.service[0].absorb_gain: shapes absorbing: give absorb = true too",
                   0) == 0);
  CHECK(test::error_of(campus(true, "absorb = true\nabsorb_gain = 2\n"))
            .rfind("bad.toml:33:1: workload.service[0].absorb_gain:", 0) == 0);
  CHECK(test::error_of(campus(true, "absorb = true\nabsorb_window_s = 0.05\n"))
            .rfind("bad.toml:33:1: workload.service[0].absorb_window_s: the average's window (0.05 s) must "
                   "be longer "
                   "than the control period (0.1 s)",
                   0) == 0);
  CHECK(
      test::error_of(campus(true, "absorb = true\nmode = \"exact\"\n"))
          .rfind("bad.toml:32:1: workload.service[0].absorb: absorbing is modelled for a fleet-mode service",
                 0) == 0);
  // absorb = false with its shaping keys is allowed (a switch for comparing runs).
  CHECK(test::error_of(campus(true, "absorb = false\nabsorb_gain = 0.5\n")) == "(no error)");
}

TEST_CASE("a service's SLO: refused below one iteration, attainment counted request by request",
          "[scenario][service]") {
  CHECK(
      test::prepare_error_of(campus(true, "slo_tpot_s = 0.001\n"))
          .rfind("bad.toml:32:1: workload.service[0].slo_tpot_s: 1 ms is below one iteration of a llama3_8b "
                 "replica on 1 x h100-sxm",
                 0) == 0);
  CHECK(test::prepare_error_of(campus(true, "slo_ttft_s = 0.0001\n"))
            .rfind("bad.toml:32:1: workload.service[0].slo_ttft_s:", 0) == 0);
  // Exact mode: the requests' own times, counted here, against the record's count.
  runs::ServeRequest o;
  o.trace = trace_path();
  o.model = "llama3_8b";
  o.gpu = "h100-sxm";
  o.replicas = 2;
  o.mode = "exact";
  o.generate_rate = 12.0;
  o.horizon_s = 300.0;
  o.slo_ttft_s = 0.2;
  o.slo_tpot_s = 0.0075;
  const runs::PlayedService played = runs::play_scenario_service(o, "chat");
  runs::ServedTrace served = runs::prepare_service(o);
  runs::play(served);
  std::int64_t met = 0, ended = 0;
  for (const auto& q : served.run.requests) {
    if (!(q.end_s < 300.0)) continue;
    ++ended;
    const double tpot = q.output_tokens > 1 ? (q.end_s - q.first_token_s) / (q.output_tokens - 1.0) : 0.0;
    met += q.first_token_s - q.arrival_s <= 0.2 && tpot <= 0.0075;
  }
  CHECK(played.record.requests_served == ended);
  CHECK(played.record.slo_met_total == met);
  CHECK(met > 0);
  CHECK(met < ended);  // a bound between the requests' own: some meet it, some do not
  CHECK(std::accumulate(played.record.slo_met.begin(), played.record.slo_met.end(), std::int64_t{0}) == met);
}

TEST_CASE("a service's cuda_graphs: decode iterations replay a graph unless it is false",
          "[scenario][service]") {
  CHECK(runs::parse_scenario(campus(true), "s.toml").services.at(0).request.cuda_graphs);
  const auto eager = runs::parse_scenario(campus(true, "cuda_graphs = false\n"), "s.toml");
  CHECK_FALSE(eager.services.at(0).request.cuda_graphs);
  // An eager stack waits for the host in every iteration: the same requests take longer and the same
  // GPUs draw less while they run.
  runs::ServeRequest o;
  o.trace = trace_path(), o.model = "llama3_8b", o.gpu = "h100-sxm", o.mode = "exact";
  o.generate_rate = 4.0, o.horizon_s = 60.0;
  runs::ServedTrace graphs = runs::prepare_service(o);
  runs::play(graphs);
  o.cuda_graphs = false;
  runs::ServedTrace host = runs::prepare_service(o);
  runs::play(host);
  REQUIRE(graphs.run.requests.size() == host.run.requests.size());
  CHECK(host.run.busy_s > graphs.run.busy_s);
  CHECK_THAT(test::prepare_error_of(campus(true, "cuda_graphs = 1\n")),
             Catch::StartsWith("bad.toml:32:1: workload.service[0].cuda_graphs:"));
}

TEST_CASE("a service's tokens late by its lag: first tokens and ends move by their intervals' lags",
          "[runs][serving]") {
  results::ServiceRecord header;
  header.name = "chat";
  header.interval_s = 1.0;
  header.slo_ttft_s = 0.6;
  runs::ServiceSeriesBuilder builder(header, 4.0, 100.0, 1.0);
  // Interval lags 0.2, 0.3, 0.4 and 0.9 s.
  builder.delay_by({0.2, 0.3, 0.4, 0.9});
  sim::ServedRequest a;
  a.arrival_s = 0.2, a.first_token_s = 0.5, a.end_s = 2.5, a.output_tokens = 11;
  // First token 0.5 + 0.2 = 0.7 s, end 2.5 + 0.4 = 2.9 s: TTFT 0.5 s (within the SLO), a token each
  // (2.9 - 0.7) / 10 = 0.22 s, ending in interval 2.
  builder.request_done(0, a);
  sim::ServedRequest b = a;
  // First token 1.6 + 0.3 = 1.9 s: TTFT 1.7 s, past the SLO; end 3.5 + 0.9 = 4.4 s, past the 4-s window.
  b.arrival_s = 0.2, b.first_token_s = 1.6, b.end_s = 3.5;
  builder.request_done(1, b);
  sim::ServedRequest c = a;
  // An end whose lag is smaller than its first token's: never before the first token.
  c.arrival_s = 2.0, c.first_token_s = 2.95, c.end_s = 3.0, c.output_tokens = 2;
  runs::ServiceSeriesBuilder other(header, 4.0, 100.0, 1.0);
  other.delay_by({0.0, 0.0, 0.5, 0.0});
  other.request_done(0, c);
  for (std::size_t k = 0; k < 4; ++k)
    builder.interval_done(k, 100.0, 0, 1.0, {}), other.interval_done(k, 100.0, 0, 1.0, {});
  const results::ServiceRecord r = builder.finish();
  CHECK(r.requests_served == 1);
  CHECK(r.completions == std::vector<std::int64_t>{0, 0, 1, 0});
  CHECK(r.ttft_p50_s[2] == Approx(0.5));
  CHECK(r.tpot_p50_s[2] == Approx(0.22));
  CHECK(r.slo_met_total == 1);
  // End to end 2.9 - 0.2 = 2.7 s, to the 1 % bins of the window's percentiles.
  CHECK(r.latency.e2e_p50_s == Approx(2.7).epsilon(0.01));
  CHECK(r.latency.e2e_p99_s == Approx(2.7).epsilon(0.01));
  // The summary: 100 W over the 4-s window is 400 J, for the one request served and its 11 tokens.
  const std::string text = runs::service_summary_text(r);
  CHECK(text.find("36.36 kJ per 1,000 output tokens, 400 J per request") != std::string::npos);
  CHECK(text.find("    end to end                p50 ") != std::string::npos);
  // c: first token 2.95 + 0.5 = 3.45 s, end max(3.0, 3.45): its one later token takes no time.
  const results::ServiceRecord o = other.finish();
  CHECK(o.completions == std::vector<std::int64_t>{0, 0, 0, 1});
  CHECK(o.ttft_p50_s[3] == Approx(1.45));
  CHECK(o.tpot_p50_s[3] == Approx(0.0));
}

TEST_CASE("docs/scenario.md's service by its shape runs", "[scenario][service][shape][docs]") {
  const auto r = prepare_docs_example("**A decoder by its shape.**", 300);
  REQUIRE(r.services.size() == 1);
  const results::ServiceRecord& record = r.services[0].record;
  CHECK(record.model == "mistral_7b");
  CHECK(record.gpus == 16);
  CHECK(record.replicas == 16);
  CHECK(record.requests_served > 0);
  // Mistral 7B's count by hand: embeddings 2 x 32000 x 4096; a layer's Q and O 2 x 4096^2, K and V
  // 2 x 4096 x 1024, SwiGLU 3 x 4096 x 14336, two norms of 4096; 32 layers and the final norm: the model
  // card's 7.24 billion (7,241,732,096).
  const double layer = 2.0 * 4096 * 4096 + 2.0 * 4096 * 1024 + 3.0 * 4096 * 14336 + 2.0 * 4096;
  CHECK(r.services[0].config.replica.model.params == 2.0 * 32000 * 4096 + 32 * layer + 4096);
  CHECK(r.services[0].config.replica.model.params == 7241732096.0);
}
