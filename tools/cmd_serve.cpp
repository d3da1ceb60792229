// `fleetwatt serve TRACE`: an LLM service played request by request on a recorded request trace (Azure LLM
// inference 2023, Mooncake, plain CSV): replicas of one model, continuous batching per replica, and what a
// planner and an operator read from it: the GPUs' power and energy, energy per request and per 1,000
// generated tokens, time to first token, time per output token and end-to-end latency percentiles, and the
// batch the replicas ran.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/jobs/request_trace.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"
#include "fleetwatt/sim/serving/service_run.hpp"

namespace fleetwatt::tools {
namespace {

using jobs::ConfigError;

struct ServeOptions {
  std::string trace, model, gpu = "h100-sxm", series_csv, requests_csv;
  std::uint32_t tp = 1, replicas = 1, max_batch = 256, max_batched_tokens = 8192;
  double memory_fraction = 0.9, rate_scale = 1.0, horizon_s = 0.0, interval_s = 1.0;
  bool json = false;
};

const core::SourceLocation kCommandLine{"command line", 0, 0};

int serve(const ServeOptions& o) {
  sim::ServiceConfig c;
  if (!models::is_zoo_model(o.model))
    throw ConfigError(kCommandLine, "--model",
                      fmt::format("unknown model '{}'; known models: {}", o.model, models::zoo_names()));
  c.replica.model = models::count_model(o.model, 0);
  if (c.replica.model.blocks == 0)
    throw ConfigError(kCommandLine, "--model", fmt::format("{} is not a transformer decoder", o.model));
  try {
    c.replica.gpu = models::find_gpu(o.gpu);
  } catch (const std::exception& e) {
    throw ConfigError(kCommandLine, "--gpu", e.what());
  }
  c.replica.tp = o.tp;
  c.replicas = o.replicas, c.max_batch = o.max_batch, c.max_batched_tokens = o.max_batched_tokens;
  c.memory_fraction = o.memory_fraction, c.interval_s = o.interval_s;
  if (o.tp > 1 && !(c.replica.gpu.nvlink_bw_Bps > 0.0))
    throw ConfigError(
        kCommandLine, "--tp",
        fmt::format("{} has no NVLink: a tensor-parallel replica needs one node's NVLink domain",
                    c.replica.gpu.id));
  try {
    (void)sim::kv_capacity_tokens(c);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(kCommandLine, "--model", e.what());
  }
  for (const auto& [path, key] :
       {std::pair{o.series_csv, "--series"}, std::pair{o.requests_csv, "--requests"}})
    if (!path.empty()) check_output_path(path, kCommandLine, key, o.trace);
  const jobs::RequestTrace read = jobs::read_request_trace(std::filesystem::path(o.trace));
  const jobs::RequestTrace trace = jobs::scale_and_fill(read, o.rate_scale, o.horizon_s);
  if (trace.requests.empty())
    throw ConfigError(kCommandLine, "--horizon-s", "the horizon holds no request of the trace");
  std::cerr << fmt::format("fleetwatt: serving {} requests of {} ({}) on {} x {} {} (tp {})\n",
                           trace.requests.size(), trace.name, trace.format, c.replicas, c.replica.tp,
                           c.replica.gpu.id, c.replica.tp);
  const sim::ServiceRun run = sim::run_service(c, trace.requests, trace.name);

  std::vector<double> ttft, tpot, e2e;
  double output_tokens = 0.0;
  for (const auto& r : run.requests) {
    ttft.push_back(r.first_token_s - r.arrival_s);
    e2e.push_back(r.end_s - r.arrival_s);
    if (r.output_tokens > 1) tpot.push_back((r.end_s - r.first_token_s) / (r.output_tokens - 1.0));
    output_tokens += r.output_tokens;
  }
  const double gpus = double(c.replicas) * c.replica.tp;
  const double mean_W = run.energy_J / run.end_s;
  const double peak_W = run.power_W.empty() ? 0.0 : *std::max_element(run.power_W.begin(), run.power_W.end());
  const double per_request = run.energy_J / double(run.requests.size());
  const double per_kilotoken = 1000.0 * run.energy_J / output_tokens;
  const double mean_batch = run.busy_s > 0.0 ? run.sequence_seconds / run.busy_s : 0.0;
  const double busy = run.busy_s / (double(c.replicas) * run.end_s);

  if (!o.series_csv.empty()) {
    std::ostringstream s;
    s << "time_s,power_W\n";
    for (std::size_t i = 0; i < run.power_W.size(); ++i)
      s << fmt::format("{},{}\n", double(i) * c.interval_s, run.power_W[i]);
    core::write_text_output(o.series_csv, "--series", [&](std::ostream& out) { out << s.str(); });
  }
  if (!o.requests_csv.empty()) {
    std::ostringstream s;
    s << "record,replica,arrival_s,input_tokens,output_tokens,first_token_s,end_s\n";
    for (const auto& r : run.requests)
      s << fmt::format("{},{},{},{},{},{},{}\n", r.record, r.replica, r.arrival_s, r.input_tokens,
                       r.output_tokens, r.first_token_s, r.end_s);
    core::write_text_output(o.requests_csv, "--requests", [&](std::ostream& out) { out << s.str(); });
  }
  const auto q = [](const std::vector<double>& v, double p) { return sim::quantile(v, p); };
  if (o.json) {
    std::cout << fmt::format(
        "{{\"requests\": {}, \"end_s\": {}, \"gpus\": {}, \"energy_J\": {}, \"mean_power_W\": {}, "
        "\"peak_power_W\": {}, \"energy_per_request_J\": {}, \"energy_per_1000_output_tokens_J\": {}, "
        "\"ttft_p50_s\": {}, \"ttft_p99_s\": {}, \"tpot_p50_s\": {}, \"tpot_p99_s\": {}, \"e2e_p50_s\": {}, "
        "\"e2e_p99_s\": {}, \"mean_batch\": {}, \"busy_share\": {}, \"iterations\": {}, "
        "\"kv_capacity_tokens\": {}}}\n",
        run.requests.size(), json_number(run.end_s), gpus, json_number(run.energy_J), json_number(mean_W),
        json_number(peak_W), json_number(per_request), json_number(per_kilotoken), json_number(q(ttft, 0.5)),
        json_number(q(ttft, 0.99)), json_number(q(tpot, 0.5)), json_number(q(tpot, 0.99)),
        json_number(q(e2e, 0.5)), json_number(q(e2e, 0.99)), json_number(mean_batch), json_number(busy),
        run.iterations, json_number(run.kv_capacity_tokens));
    return 0;
  }
  std::cout << fmt::format(
      "service            {} on {} x {} {} (tp {}), {} GPUs; trace {} ({}, rate x {})\n"
      "requests served    {} in {:.1f} s ({:.0f} output tokens)\n"
      "GPU power          mean {:.1f} kW, peak {:.1f} kW over {:g} s intervals\n"
      "GPU energy         {:.2f} kWh: {:.1f} J per request, {:.1f} J per 1,000 output tokens\n"
      "time to 1st token  p50 {:.3f} s, p99 {:.3f} s\n"
      "time per token     p50 {:.1f} ms, p99 {:.1f} ms\n"
      "end to end         p50 {:.2f} s, p99 {:.2f} s\n"
      "batch              {:.1f} sequences on average while busy; replicas busy {:.1f} % of the time; {} "
      "iterations\n"
      "KV cache           {:.0f} tokens per replica\n",
      o.model, c.replicas, c.replica.tp, c.replica.gpu.id, c.replica.tp, gpus, trace.name, trace.format,
      o.rate_scale, run.requests.size(), run.end_s, output_tokens, mean_W / 1e3, peak_W / 1e3, c.interval_s,
      run.energy_J / 3.6e6, per_request, per_kilotoken, q(ttft, 0.5), q(ttft, 0.99), 1e3 * q(tpot, 0.5),
      1e3 * q(tpot, 0.99), q(e2e, 0.5), q(e2e, 0.99), mean_batch, 100.0 * busy, run.iterations,
      run.kv_capacity_tokens);
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Play an LLM request trace on replicas of a model (continuous batching): power, energy, latency");
  cmd->footer(
      "TRACE: the Azure LLM inference trace 2023 (TIMESTAMP,ContextTokens,GeneratedTokens), Mooncake JSON\n"
      "lines (timestamp, input_length, output_length) or a plain CSV time_s,input_tokens,output_tokens.\n"
      "Requests go to the replicas in turn; each runs vLLM-style continuous batching (first come first "
      "served,\n"
      "chunked prefill, a request admitted when the KV cache holds it whole). Iterations are timed and "
      "their\n"
      "power taken by the serving iteration model (docs/predictors.md, \"Serving iterations\").\n"
      "Examples:\n"
      "  fleetwatt serve ../shared/data/azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv \\\n"
      "      --model llama2_70b --gpu a100-sxm-80gb --tp 4 --replicas 2\n"
      "  fleetwatt serve requests.csv --model llama3_8b --gpu h100-sxm --max-batch 64 --series power.csv");
  cmd->add_option("trace", o->trace, "Request trace file")->required();
  cmd->add_option("--model", o->model, "Zoo LLM (see `fleetwatt list`)")->required();
  cmd->add_option("--gpu", o->gpu, "GPU preset id")->capture_default_str();
  cmd->add_option("--tp", o->tp, "Tensor-parallel GPUs per replica (one node's NVLink domain)")
      ->capture_default_str()
      ->check(CLI::Range(1, 72));
  cmd->add_option("--replicas", o->replicas, "Replicas of the model")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--max-batch", o->max_batch, "Sequences a replica runs at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--max-batched-tokens", o->max_batched_tokens, "Tokens an iteration runs (chunked prefill)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000000));
  cmd->add_option("--memory-fraction", o->memory_fraction,
                  "Share of the GPUs' memory for weights and KV cache")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 1.0));
  cmd->add_option("--rate-scale", o->rate_scale, "Run the trace at this multiple of its request rate")
      ->capture_default_str()
      ->check(CLI::Range(1e-6, 1e6));
  cmd->add_option("--horizon-s", o->horizon_s, "Repeat the trace to fill this many seconds (0: once)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--interval-s", o->interval_s, "Interval of the power series")
      ->capture_default_str()
      ->check(CLI::Range(1e-3, 86400.0));
  cmd->add_option("--series", o->series_csv, "Write the GPUs' power per interval (CSV time_s,power_W) here");
  cmd->add_option("--requests", o->requests_csv, "Write each request's first-token and end times (CSV) here");
  cmd->add_flag("--json", o->json, "Print one JSON object instead of the summary");
  cmd->callback([&action, o] { action = [o] { return serve(*o); }; });
}

}  // namespace fleetwatt::tools
