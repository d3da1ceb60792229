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
#include "fleetwatt/runs/model_shape_text.hpp"
#include "fleetwatt/runs/service_request.hpp"

namespace fleetwatt::tools {
namespace {

struct ServeOptions {
  runs::ServeRequest request;
  std::string model_shape;  ///< --model-shape's text, read into request.model_shape
  std::string series_csv, requests_csv;
  bool json = false;
};

int serve(ServeOptions& o) {
  const core::SourceLocation command_line{"command line", 0, 0};
  if (!o.model_shape.empty())
    o.request.model_shape =
        runs::parse_model_shape_text(o.model_shape, o.request.origin, o.request.option_name("model-shape"));
  for (const auto& [path, key] :
       {std::pair{o.series_csv, "--series"}, std::pair{o.requests_csv, "--requests"}})
    if (!path.empty()) check_output_path(path, command_line, key, o.request.trace);
  runs::ServedTrace served = runs::prepare_service(o.request);
  std::cerr << fmt::format("fleetwatt: serving {} requests of {} ({}) on {} x {} {} (tp {}{})\n",
                           served.trace.requests.size(), served.trace.name, served.trace.format,
                           o.request.replicas, o.request.tp * o.request.pp, o.request.gpu, o.request.tp,
                           o.request.pp > 1 ? fmt::format(", pp {}", o.request.pp) : std::string());
  runs::play(served);
  if (!o.series_csv.empty())
    core::write_text_output(o.series_csv, "--series",
                            [&](std::ostream& out) { out << runs::power_csv(served); });
  if (!o.requests_csv.empty())
    core::write_text_output(o.requests_csv, "--requests",
                            [&](std::ostream& out) { out << runs::requests_csv(served); });
  std::cout << (o.json ? runs::summary_json(served.summary) + "\n" : runs::summary_text(o.request, served));
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
      "  fleetwatt serve requests.csv --model llama3_8b --gpu h100-sxm --max-batch 64 --series power.csv\n"
      "  fleetwatt serve examples/requests/chat-minute.csv --model mistral_7b --gpu h100-sxm \\\n"
      "      --model-shape layers=32,hidden=4096,heads=32,kv_heads=8,ffn_hidden=14336,vocab=32000\n"
      "  fleetwatt serve examples/requests/chat-minute.csv --model llama3_8b --gpu h100-sxm --replicas 8 \\\n"
      "      --generate-rate 20 --hourly 3,2,2,2,2,3,4,6,8,9,10,10,10,10,10,10,10,9,8,7,6,5,4,3");
  cmd->add_option("trace", o->request.trace, "Request trace file")->required();
  cmd->add_option("--model", o->request.model,
                  "Zoo LLM (see `fleetwatt list`), or the name of the model --model-shape gives (default "
                  "custom)");
  cmd->add_option("--model-shape", o->model_shape,
                  "A decoder by its shape instead of a zoo LLM, in Llama's layout, e.g. "
                  "layers=32,hidden=4096,heads=32,kv_heads=8,ffn_hidden=14336,vocab=32000 (also experts, "
                  "top_k, gated_mlp)");
  cmd->add_option("--gpu", o->request.gpu, "GPU preset id")->capture_default_str();
  cmd->add_option("--tp", o->request.tp, "Tensor-parallel GPUs per replica (one node's NVLink domain)")
      ->capture_default_str()
      ->check(CLI::Range(1, 72));
  cmd->add_option("--pp", o->request.pp,
                  "Pipeline stages per replica, tp GPUs each (a replica serves as pp engines, vLLM's virtual "
                  "engines, each with its own batch of up to --max-batch)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--replicas", o->request.replicas, "Replicas of the model")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--max-batch", o->request.max_batch, "Sequences a replica runs at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_flag(
      "--eager", [o](std::int64_t) { o->request.cuda_graphs = false; },
      "Launch every kernel from the host, decode too (default: decode iterations replay a CUDA "
      "graph, as vLLM does unless enforce_eager)");
  cmd->add_option("--scheduler", o->request.scheduler,
                  "How a replica fills each iteration: fcfs (prompts beside the decodes, chunked), "
                  "prefill_priority (prompts alone first) or disaggregated (prompt and decode pools; see "
                  "`fleetwatt list`)")
      ->capture_default_str();
  cmd->add_option("--prefill-replicas", o->request.prefill_replicas,
                  "With --scheduler disaggregated: replicas that run prompts (default a quarter, at least 1)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option(
         "--kv-link-gbytes-per-s", o->request.kv_link_gbytes_per_s,
         "With --scheduler disaggregated: each GPU's link for the keys and values handed to the decode "
         "replicas, GB/s (default 50)")
      ->check(CLI::Range(1e-6, 1e6));
  cmd->add_option("--max-batched-tokens", o->request.max_batched_tokens,
                  "Tokens an iteration runs (chunked prefill)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000000));
  cmd->add_option("--memory-fraction", o->request.memory_fraction,
                  "Share of the GPUs' memory for weights and KV cache")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 1.0));
  cmd->add_option("--rate-scale", o->request.rate_scale, "Run the trace at this multiple of its request rate")
      ->capture_default_str()
      ->check(CLI::Range(1e-6, 1e6));
  cmd->add_option("--horizon-s", o->request.horizon_s, "Repeat the trace to fill this many seconds (0: once)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--interval-s", o->request.interval_s, "Interval of the power series")
      ->capture_default_str()
      ->check(CLI::Range(1e-3, 86400.0));
  cmd->add_option(
         "--generate-rate", o->request.generate_rate,
         "Generate arrivals at this mean rate (requests/s) over --horizon-s (default a day) instead of "
         "the trace's; the trace gives the prompt and generation lengths")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--hourly", o->request.hourly,
                  "With --generate-rate: 24 comma-separated relative rates, one an hour from midnight (a "
                  "diurnal curve; default flat), or 'trace': the trace's own rate by hour of the day (a "
                  "trace of a day or more)");
  cmd->add_option("--start-hour", o->request.start_hour, "With --generate-rate: the hour of day at time 0")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 23.999999));
  cmd->add_option("--burstiness", o->request.burstiness,
                  "With --generate-rate: gamma shape of the inter-arrival times (1: Poisson; 0.25: bursts, "
                  "their spread twice Poisson's)")
      ->capture_default_str()
      ->check(CLI::Range(1e-3, 1e3));
  cmd->add_option("--seed", o->request.seed, "With --generate-rate: the random seed")->capture_default_str();
  cmd->add_option("--mode", o->request.mode,
                  "exact: every request and iteration; fleet: a fluid model by interval (campus scale)")
      ->capture_default_str();
  cmd->add_option("--series", o->series_csv, "Write the GPUs' power per interval (CSV time_s,power_W) here");
  cmd->add_option("--requests", o->requests_csv, "Write each request's first-token and end times (CSV) here");
  cmd->add_flag("--json", o->json, "Print one JSON object instead of the summary");
  cmd->callback([&action, o] { action = [o] { return serve(*o); }; });
}

}  // namespace fleetwatt::tools
