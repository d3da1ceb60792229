// `fleetwatt serve` end to end: its summary equals the library's run of the same trace and service (energy,
// latency quantiles, the power series' energy), --help has examples, and bad input is one located line with
// status 2.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "fleetwatt/jobs/request_trace.hpp"
#include "fleetwatt/jobs/trace.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/sim/serving/service_fleet.hpp"
#include "fleetwatt/sim/serving/service_run.hpp"
#include "test_support.hpp"

using namespace fleetwatt::test;
using namespace fleetwatt;

namespace {

/// 40 requests over 20 s, prompts of 200-2,150 tokens, 20-215 generated.
std::string trace_text() {
  std::string t = "time_s,input_tokens,output_tokens\n";
  for (int i = 0; i < 40; ++i) t += fmt::format("{},{},{}\n", 0.5 * i, 200 + 50 * i, 20 + 5 * i);
  return t;
}

}  // namespace

TEST_CASE("serve's summary is the library's run of the same trace", "[cli][serve]") {
  TempDir dir;
  const auto trace = dir.write("requests.csv", trace_text());
  const auto series = dir / "power.csv";
  const auto r = run_command(
      fleetwatt_command() + " serve " + trace.string() +
      " --model llama3_8b --gpu h100-sxm --replicas 2 --max-batch 16 --json --series " + series.string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("serving 40 requests") != std::string::npos);
  const auto j = nlohmann::json::parse(r.out);

  sim::ServiceConfig c;
  c.replica.model = models::count_model("llama3_8b", 0);
  c.replica.gpu = models::find_gpu("h100-sxm");
  c.replicas = 2, c.max_batch = 16;
  const jobs::RequestTrace t = jobs::read_request_trace(trace);
  const sim::ServiceRun run = sim::run_service(c, t.requests, t.name);
  CHECK(j["requests"] == 40);
  CHECK(j["gpus"] == 2);
  CHECK(j["energy_J"].get<double>() == Approx(run.energy_J).epsilon(1e-12));
  CHECK(j["end_s"].get<double>() == Approx(run.end_s).epsilon(1e-12));
  CHECK(j["mean_power_W"].get<double>() == Approx(run.energy_J / run.end_s).epsilon(1e-12));
  CHECK(j["energy_per_request_J"].get<double>() == Approx(run.energy_J / 40).epsilon(1e-12));
  double tokens = 0.0;
  std::vector<double> ttft;
  for (const auto& q : run.requests) tokens += q.output_tokens, ttft.push_back(q.first_token_s - q.arrival_s);
  CHECK(j["energy_per_1000_output_tokens_J"].get<double>() ==
        Approx(1000 * run.energy_J / tokens).epsilon(1e-12));
  CHECK(j["ttft_p99_s"].get<double>() == Approx(jobs::quantile(ttft, 0.99)).epsilon(1e-12));
  // Two idle H100s hold at least their floor, and no interval passes two boards' 700 W.
  CHECK(j["peak_power_W"].get<double>() <= 1400.0);
  CHECK(j["mean_power_W"].get<double>() > 2 * 70.0);

  // The series file: the same energy, interval by interval.
  std::ifstream in(series);
  std::string line;
  std::getline(in, line);
  CHECK(line == "time_s,power_W");
  double energy = 0.0;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    const double w = std::stod(line.substr(line.find(',') + 1));
    energy += w * std::min(1.0, run.end_s - double(n));
    ++n;
  }
  CHECK(n == run.power_W.size());
  CHECK(energy == Approx(run.energy_J).epsilon(1e-9));

  // The text summary names what it is.
  const auto text =
      run_command(fleetwatt_command() + " serve " + trace.string() + " --model llama3_8b --gpu h100-sxm");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("requests served    40") != std::string::npos);
  CHECK(text.out.find("J per 1,000 output tokens") != std::string::npos);
}

TEST_CASE("serve explains itself and refuses bad input in one located line", "[cli][serve]") {
  const auto help = run_command(fleetwatt_command() + " serve --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Examples:") != std::string::npos);
  TempDir dir;
  const auto bad = dir.write("requests.csv", "time_s,input_tokens,output_tokens\n0,10,5\n1,10,-5\n");
  const auto r = run_command(fleetwatt_command() + " serve " + bad.string() + " --model llama3_8b");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("requests.csv:3:") != std::string::npos);
  CHECK(r.err.find("output_tokens") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  const auto good = dir.write("ok.csv", "time_s,input_tokens,output_tokens\n0,10,5\n");
  // Llama-2-70B's 138 GB of weights on one 80 GB A100.
  const auto big = run_command(fleetwatt_command() + " serve " + good.string() +
                               " --model llama2_70b --gpu a100-sxm-80gb");
  CHECK(big.exit_code == 2);
  CHECK(big.err.find("--model") != std::string::npos);
  CHECK(big.err.find("do not fit") != std::string::npos);
  const auto unknown = run_command(fleetwatt_command() + " serve " + good.string() + " --model nope");
  CHECK(unknown.exit_code == 2);
  const auto cnn = run_command(fleetwatt_command() + " serve " + good.string() + " --model resnet50");
  CHECK(cnn.exit_code == 2);
  CHECK(cnn.err.find("not a transformer decoder") != std::string::npos);
  const auto pcie =
      run_command(fleetwatt_command() + " serve " + good.string() + " --model llama3_8b --gpu l40s --tp 2");
  CHECK(pcie.exit_code == 2);
  CHECK(pcie.err.find("NVLink") != std::string::npos);
  // The scheduler's name is checked against the registry, as the scenario's key is, in one line.
  const auto lifo =
      run_command(fleetwatt_command() + " serve " + good.string() + " --model llama3_8b --scheduler lifo");
  CHECK(lifo.exit_code == 2);
  CHECK(lifo.err.find("--scheduler: unknown service scheduler 'lifo' (known: fcfs, prefill_priority, "
                      "disaggregated)") != std::string::npos);
  CHECK(std::count(lifo.err.begin(), lifo.err.end(), '\n') == 1);
}

TEST_CASE("serve --generate-rate draws a day of arrivals on the hourly curve, lengths from the trace",
          "[cli][serve]") {
  TempDir dir;
  const auto trace = dir.write("requests.csv", "time_s,input_tokens,output_tokens\n0,100,8\n1,300,16\n");
  const auto requests = dir / "requests-out.csv";
  // Two hours at 0.5 requests/s on average over the day's curve: hour 0 at 1, hour 1 at 3 (the rest 1):
  // 0.5 x 24 / 26 and 3 x that a second.
  std::string hourly = "1,3";
  for (int i = 0; i < 22; ++i) hourly += ",1";
  const auto r =
      run_command(fleetwatt_command() + " serve " + trace.string() +
                  " --model llama3_8b --gpu h100-sxm --generate-rate 0.5 --horizon-s 7200 --hourly " +
                  hourly + " --seed 4 --json --requests " + requests.string());
  REQUIRE(r.exit_code == 0);
  std::ifstream in(requests);
  std::string line;
  std::getline(in, line);
  double first_hour = 0.0, second_hour = 0.0;
  bool lengths_recorded = true;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    (std::stod(f[2]) < 3600.0 ? first_hour : second_hour) += 1.0;
    lengths_recorded =
        lengths_recorded && ((f[3] == "100" && f[4] == "8") || (f[3] == "300" && f[4] == "16"));
  }
  CHECK(lengths_recorded);
  // Poisson counts: 1,661.5 and 4,984.6 expected; within three standard deviations.
  CHECK(std::abs(first_hour - 3600 * 0.5 * 24 / 26) < 3 * std::sqrt(1661.5));
  CHECK(std::abs(second_hour - 3 * 3600 * 0.5 * 24 / 26) < 3 * std::sqrt(4984.6));
  const auto bad = run_command(fleetwatt_command() + " serve " + trace.string() +
                               " --model llama3_8b --generate-rate 1 --hourly 1,2,3");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--hourly") != std::string::npos);
  CHECK(bad.err.find("24 values") != std::string::npos);
}

TEST_CASE("serve --mode fleet gives the library's fleet run, and an unknown mode is refused",
          "[cli][serve]") {
  TempDir dir;
  const auto trace = dir.write("requests.csv", trace_text());
  const auto r = run_command(fleetwatt_command() + " serve " + trace.string() +
                             " --model llama3_8b --gpu h100-sxm --replicas 2 --mode fleet --json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  sim::ServiceConfig c;
  c.replica.model = models::count_model("llama3_8b", 0);
  c.replica.gpu = models::find_gpu("h100-sxm");
  c.replicas = 2;
  const jobs::RequestTrace t = jobs::read_request_trace(trace);
  const sim::ServiceRun run = sim::run_service_fleet(c, t.requests, t.name);
  CHECK(j["energy_J"].get<double>() == Approx(run.energy_J).epsilon(1e-12));
  CHECK(j["end_s"].get<double>() == run.end_s);
  const auto bad =
      run_command(fleetwatt_command() + " serve " + trace.string() + " --model llama3_8b --mode fast");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--mode") != std::string::npos);
}

TEST_CASE("serve --model-shape serves as the zoo model of that shape, a bad shape is one line",
          "[cli][serve][shape]") {
  TempDir dir;
  const auto trace = dir.write("requests.csv", trace_text());
  const std::string base = fleetwatt_command() + " serve " + trace.string() + " --gpu h100-sxm --replicas 2 ";
  // Llama 3 8B's shape from its report (table 3), written out: the JSON summary is the zoo model's, digit
  // for digit.
  const std::string shape =
      " --model-shape layers=32,hidden=4096,heads=32,kv_heads=8,ffn_hidden=14336,vocab=128256";
  const auto zoo = run_command(base + "--json --model llama3_8b");
  const auto shaped = run_command(base + "--json" + shape);
  INFO(zoo.err << shaped.err);
  REQUIRE(zoo.exit_code == 0);
  REQUIRE(shaped.exit_code == 0);
  CHECK(shaped.out == zoo.out);
  // The text summary names it by its name, depth and width.
  const auto text = run_command(base + "--model my8b" + shape);
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("service            my8b (32 layers, hidden 4096) on 2 x 1 h100-sxm") !=
        std::string::npos);
  const auto help = run_command(fleetwatt_command() + " serve --help");
  CHECK(help.out.find("--model-shape layers=32,hidden=4096") != std::string::npos);
  // Refused, each in one line with status 2: an unknown key, a zoo name beside a shape, weights that do not
  // fit (Llama 3 70B's shape on one H100), a shape without layers.
  const struct {
    std::string args, said;
  } cases[] = {
      {shape + ",depth=3",
       "command line: --model-shape: unknown key 'depth' (known: layers, hidden, heads, "
       "kv_heads, ffn_hidden, vocab, experts, top_k, gated_mlp)"},
      {shape + " --model llama3_8b", "command line: --model: 'llama3_8b' is a zoo model"},
      {" --model-shape layers=80,hidden=8192,heads=64,kv_heads=8,ffn_hidden=28672,vocab=128256",
       "command line: --model-shape: custom's weights (131.4 GiB in 16 bits) do not fit 1 x h100-sxm"},
      {" --model-shape hidden=4096,heads=32",
       "command line: --model-shape: needs layers (and hidden, heads)"},
      {"", "command line: --model: missing: a zoo decoder"},
  };
  for (const auto& c : cases) {
    const auto r = run_command(base + c.args);
    INFO(c.args << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.said) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("a scenario service's bad shape stops the run in one located line", "[cli][serve][shape]") {
  TempDir dir;
  const auto trace = dir.write("requests.csv", trace_text());
  const auto scenario = [&](const std::string& model_keys) {
    return dir.write("s.toml",
                     "[fleet]\nnodes = 1\ngpus_per_node = 8\ngpu = \"h100-sxm\"\n[workload]\n"
                     "horizon_s = 60\n[[workload.service]]\n" +
                         model_keys + "trace = \"" + trace.generic_string() + "\"\n");
  };
  const struct {
    std::string keys, said;
  } cases[] = {
      {"hidden = 4096\nheads = 32\n",
       "s.toml:8:1: workload.service[0].hidden: a model given by its shape needs layers (and hidden, heads)"},
      {"model = \"llama3_8b\"\nlayers = 32\nhidden = 4096\nheads = 32\n",
       "s.toml:8:1: workload.service[0].model: 'llama3_8b' is a zoo model, whose shape the zoo fixes"},
  };
  for (const auto& c : cases) {
    const auto out = dir.path() / "out.h5";
    const auto r =
        run_command(fleetwatt_command() + " run " + scenario(c.keys).string() + " -o " + out.string());
    INFO(c.keys << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.said) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(out));
  }
}
