// An LLM service played on a request trace: the request checked, the run, its summary and texts (see the
// header).
#include "fleetwatt/runs/service_request.hpp"

#include "fleetwatt/runs/option_name.hpp"

#include "fleetwatt/sim/serving/service_fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/json_text.hpp"
#include "fleetwatt/jobs/hourly_rates.hpp"
#include "fleetwatt/jobs/request_generator.hpp"
#include "fleetwatt/jobs/request_source.hpp"
#include "fleetwatt/jobs/trace.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/serving/serving_iteration.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"

namespace fleetwatt::runs {
namespace {

using core::ConfigError;

ConfigError option_error(const ServeRequest& o, std::string_view flag, const std::string& message) {
  return ConfigError({o.origin, 0, 0}, o.option_name(flag), message);
}

/// The options' ranges, named at their option whether they came as flags or keywords (the command's CLI11
/// checks refuse most of them first).
void check_ranges(const ServeRequest& o) {
  const auto at_least_one = [&](const char* flag, std::uint32_t v) {
    if (v == 0) throw option_error(o, flag, "must be at least 1");
  };
  at_least_one("tp", o.tp), at_least_one("pp", o.pp), at_least_one("replicas", o.replicas);
  at_least_one("max-batch", o.max_batch);
  at_least_one("max-batched-tokens", o.max_batched_tokens);
  if (!(o.memory_fraction > 0.0 && o.memory_fraction <= 1.0))
    throw option_error(o, "memory-fraction", "must be in (0, 1]");
  if (!(o.rate_scale > 0.0 && o.rate_scale < 1e300)) throw option_error(o, "rate-scale", "must be positive");
  if (!(o.horizon_s >= 0.0 && o.horizon_s < 1e300))
    throw option_error(o, "horizon-s", "must not be negative");
  if (!(o.interval_s > 0.0 && o.interval_s < 1e300)) throw option_error(o, "interval-s", "must be positive");
  if (!(o.generate_rate >= 0.0 && o.generate_rate < 1e300))
    throw option_error(o, "generate-rate", "must not be negative");
  if (!(o.start_hour >= 0.0 && o.start_hour < 24.0))
    throw option_error(o, "start-hour", "must be in [0, 24)");
  if (!(o.burstiness > 0.0 && o.burstiness < 1e300)) throw option_error(o, "burstiness", "must be positive");
}

/// The name of a model given by its shape: the request's, else "custom" (as a scenario's job names one).
std::string shape_name(const ServeRequest& o) {
  return o.model.empty() ? "custom" : o.model;
}

}  // namespace

std::string ServeRequest::option_name(std::string_view flag) const {
  return runs::option_name(flag, keyword_names);
}

double shortest_iteration_s(const sim::ServiceConfig& c) {
  models::IterationBatch one;
  one.decode_sequences = 1.0;
  one.decode_context_tokens = 1.0;
  return models::serving_iteration(c.replica, one, c.constants).time_s;
}

sim::ServiceConfig service_config(const ServeRequest& o) {
  check_ranges(o);
  sim::ServiceConfig c;
  // The option a model's own errors (not fitting the GPUs) name: the shape when the model is given by it.
  const char* model_flag = "model";
  if (o.model_shape.given()) {
    model_flag = "model-shape";
    if (models::is_zoo_model(o.model))
      throw option_error(o, "model",
                         fmt::format("'{}' is a zoo model, whose shape the zoo fixes: a model given by its "
                                     "shape takes a name of its own (or none: custom)",
                                     o.model));
    // Serving reads the shape's widths, never its counts over a sequence: they are taken at one token.
    try {
      c.replica.model = models::decoder_from_shape(o.model_shape, 1, shape_name(o));
    } catch (const std::invalid_argument& e) {
      throw option_error(o, "model-shape", e.what());  // a shape that cannot be, at its key
    }
  } else {
    if (o.model.empty())
      throw option_error(o, "model",
                         fmt::format("missing: a zoo decoder (see `fleetwatt list`) or a shape ({})",
                                     o.option_name("model-shape")));
    if (!models::is_zoo_model(o.model))
      throw option_error(o, "model",
                         fmt::format("unknown model '{}'; known models: {}", o.model, models::zoo_names()));
    c.replica.model = models::count_model(o.model, 0);
  }
  try {
    c.replica.gpu = models::find_gpu(o.gpu);
  } catch (const std::exception& e) {
    throw option_error(o, "gpu", e.what());
  }
  if (o.mode != "exact" && o.mode != "fleet")
    throw option_error(o, "mode", fmt::format("'{}' is neither exact nor fleet", o.mode));
  c.replica.tp = o.tp, c.replica.pp = o.pp;
  c.replicas = o.replicas, c.max_batch = o.max_batch, c.max_batched_tokens = o.max_batched_tokens;
  c.memory_fraction = o.memory_fraction, c.interval_s = o.interval_s;
  c.constants.decode_graphs = o.cuda_graphs;
  const auto* scheduler = sim::service_schedulers().find(o.scheduler);
  if (scheduler == nullptr)
    throw option_error(o, "scheduler", sim::service_schedulers().unknown(o.scheduler));
  c.scheduling = scheduler->make;
  const bool pools = c.scheduling == sim::ServiceScheduling::disaggregated;
  if (!pools && (o.prefill_replicas > 0 || o.kv_link_gbytes_per_s > 0.0))
    throw option_error(o, o.prefill_replicas > 0 ? "prefill-replicas" : "kv-link-gbytes-per-s",
                       "sets the disaggregated scheduler's pools: give the scheduler disaggregated too");
  if (pools) {
    if (o.autoscale.enabled)
      throw option_error(o, "target-utilisation", "autoscaling does not park disaggregated pools' replicas");
    if (o.replicas < 2)
      throw option_error(o, "replicas", "disaggregated pools need at least 2 replicas (prompts and decodes)");
    if (o.prefill_replicas >= o.replicas)
      throw option_error(
          o, "prefill-replicas",
          fmt::format("{} leaves none of the {} replicas to decode", o.prefill_replicas, o.replicas));
    if (!(o.kv_link_gbytes_per_s >= 0.0 && o.kv_link_gbytes_per_s < 1e300))
      throw option_error(o, "kv-link-gbytes-per-s", "must be positive");
    c.prefill_replicas = o.prefill_replicas;
    if (o.kv_link_gbytes_per_s > 0.0) c.kv_link_Bps = 1e9 * o.kv_link_gbytes_per_s;
  }
  c.autoscale = o.autoscale;
  if (o.autoscale.enabled) {
    // Parking one of a replica's engines would not idle a GPU: every stage serves all of them.
    if (o.pp > 1)
      throw option_error(o, "target-utilisation",
                         "autoscaling parks whole replicas, not pipeline stages (pp 1)");
    if (o.mode != "fleet")
      throw option_error(o, "target-utilisation",
                         "autoscaling is modelled in fleet mode only (mode = \"fleet\")");
    if (!(o.autoscale.target_utilisation > 0.0 && o.autoscale.target_utilisation <= 1.0))
      throw option_error(o, "target-utilisation", "must be in (0, 1]");
    if (o.autoscale.min_replicas > o.replicas)
      throw option_error(
          o, "min-replicas",
          fmt::format("{} is more than the service's {} replicas", o.autoscale.min_replicas, o.replicas));
    if (!(o.autoscale.wake_s >= 0.0 && o.autoscale.wake_s < 1e300))
      throw option_error(o, "wake-s", "must not be negative");
  }
  if (const auto [key, why] = models::replica_problem(c.replica); !key.empty())
    throw option_error(o, key, why);
  try {
    (void)sim::kv_capacity_tokens(c);
  } catch (const std::invalid_argument& e) {
    throw option_error(o, model_flag, e.what());
  }
  // An objective no token can meet: below one iteration of a replica running one sequence.
  const double fastest = shortest_iteration_s(c);
  for (const auto& [flag, bound] :
       {std::pair{"slo-ttft-s", o.slo_ttft_s}, std::pair{"slo-tpot-s", o.slo_tpot_s}}) {
    if (!(bound >= 0.0 && bound < 1e300)) throw option_error(o, flag, "must not be negative");
    if (bound > 0.0 && bound < fastest)
      throw option_error(
          o, flag,
          fmt::format("{:.3g} ms is below one iteration of a {} replica on {} x {} ({:.3g} ms with "
                      "a single sequence): no request can meet it",
                      bound * 1e3, model_label(o), o.tp, o.gpu, fastest * 1e3));
  }
  return c;
}

std::string model_label(const ServeRequest& o) {
  if (!o.model_shape.given()) return o.model;
  return fmt::format("{} ({} layers, hidden {})", shape_name(o), o.model_shape.layers, o.model_shape.hidden);
}

std::unique_ptr<jobs::RequestSource> request_source(const ServeRequest& o, const jobs::RequestTrace& read) {
  if (!(o.generate_rate > 0.0)) {
    try {
      return std::make_unique<jobs::TraceReplay>(read, o.rate_scale, o.horizon_s);
    } catch (const std::invalid_argument& e) {
      throw option_error(o, "horizon-s", e.what());
    }
  }
  jobs::RequestGeneratorConfig g;
  g.mean_rate_per_s = o.generate_rate * o.rate_scale;
  g.start_hour = o.start_hour;
  g.burstiness_shape = o.burstiness;
  g.horizon_s = o.horizon_s > 0.0 ? o.horizon_s : 86400.0;
  g.seed = o.seed;
  if (o.hourly == "trace") {
    try {
      g.hourly = jobs::hourly_rates(read, o.start_hour);
    } catch (const std::invalid_argument& e) {
      throw option_error(o, "hourly", e.what());
    }
  } else if (!o.hourly.empty()) {
    std::vector<double> v;
    std::string item;
    std::istringstream in(o.hourly);
    while (std::getline(in, item, ',')) {
      const auto x = core::parse_number(item);
      if (!x) throw option_error(o, "hourly", fmt::format("'{}' is not a number", item));
      v.push_back(*x);
    }
    if (v.size() != 24)
      throw option_error(o, "hourly",
                         fmt::format("needs 24 values (one an hour from midnight), not {}", v.size()));
    std::copy(v.begin(), v.end(), g.hourly.begin());
  }
  try {
    return std::make_unique<jobs::RequestGenerator>(g, read.requests);
  } catch (const std::invalid_argument& e) {
    throw option_error(o, "generate-rate", e.what());
  }
}

ServedTrace prepare_service(const ServeRequest& o) {
  sim::ServiceConfig config = service_config(o);  // checked before the trace is read
  const jobs::RequestTrace read = jobs::read_request_trace(std::filesystem::path(o.trace));
  return prepare_service(o, std::move(config), read);
}

ServedTrace prepare_service(const ServeRequest& o, sim::ServiceConfig config,
                            const jobs::RequestTrace& read) {
  ServedTrace out;
  out.config = std::move(config);
  out.fleet = o.mode == "fleet";
  out.trace.name = read.name;
  out.trace.format = o.generate_rate > 0.0 ? read.format + ", generated" : read.format;
  // Held whole for the exact mode and the request table: bounded like any list in memory (a scenario's
  // fleet-mode service streams instead).
  const auto source = request_source(o, read);
  constexpr std::size_t kMaxHeld = 100'000'000;
  jobs::Request r;
  while (source->next(r)) {
    if (out.trace.requests.size() == kMaxHeld)
      throw option_error(o, o.generate_rate > 0.0 ? "generate-rate" : "horizon-s",
                         "more than 10^8 requests to hold: lower the rate or the horizon");
    out.trace.requests.push_back(r);
  }
  if (out.trace.requests.empty())
    throw option_error(o, "horizon-s", "the horizon holds no request of the trace");
  return out;
}

void play(ServedTrace& served) {
  served.run = served.fleet ? sim::run_service_fleet(served.config, served.trace.requests, served.trace.name)
                            : sim::run_service(served.config, served.trace.requests, served.trace.name);
  served.summary = summarize(served.run, served.config);
}

ServedTrace serve(const ServeRequest& request) {
  ServedTrace out = prepare_service(request);
  play(out);
  return out;
}

ServiceSummary summarize(const sim::ServiceRun& run, const sim::ServiceConfig& c) {
  ServiceSummary s;
  std::vector<double> ttft, tpot, e2e;
  for (const auto& r : run.requests) {
    ttft.push_back(r.first_token_s - r.arrival_s);
    e2e.push_back(r.end_s - r.arrival_s);
    if (r.output_tokens > 1) tpot.push_back((r.end_s - r.first_token_s) / (r.output_tokens - 1.0));
    s.output_tokens += r.output_tokens;
  }
  s.requests = run.requests.size();
  s.gpus = sim::service_gpus(c);
  s.end_s = run.end_s, s.energy_J = run.energy_J;
  s.mean_power_W = run.end_s > 0.0 ? run.energy_J / run.end_s : 0.0;
  s.peak_power_W = run.power_W.empty() ? 0.0 : *std::max_element(run.power_W.begin(), run.power_W.end());
  s.energy_per_request_J = s.requests ? run.energy_J / double(s.requests) : 0.0;
  s.energy_per_1000_output_tokens_J = s.output_tokens > 0.0 ? 1000.0 * run.energy_J / s.output_tokens : 0.0;
  s.ttft_p50_s = jobs::quantile(ttft, 0.5), s.ttft_p99_s = jobs::quantile(ttft, 0.99);
  s.tpot_p50_s = jobs::quantile(tpot, 0.5), s.tpot_p99_s = jobs::quantile(tpot, 0.99);
  s.e2e_p50_s = jobs::quantile(e2e, 0.5), s.e2e_p99_s = jobs::quantile(e2e, 0.99);
  s.mean_batch = run.busy_s > 0.0 ? run.sequence_seconds / run.busy_s : 0.0;
  s.busy_share = run.end_s > 0.0 ? run.busy_s / (double(sim::serving_engines(c)) * run.end_s) : 0.0;
  s.iterations = run.iterations;
  s.kv_capacity_tokens = run.kv_capacity_tokens;
  return s;
}

std::string summary_json(const ServiceSummary& s) {
  using core::json_number;
  return fmt::format(
      "{{\"requests\": {}, \"end_s\": {}, \"gpus\": {}, \"output_tokens\": {}, \"energy_J\": {}, "
      "\"mean_power_W\": {}, \"peak_power_W\": {}, \"energy_per_request_J\": {}, "
      "\"energy_per_1000_output_tokens_J\": {}, \"ttft_p50_s\": {}, \"ttft_p99_s\": {}, \"tpot_p50_s\": {}, "
      "\"tpot_p99_s\": {}, \"e2e_p50_s\": {}, \"e2e_p99_s\": {}, \"mean_batch\": {}, \"busy_share\": {}, "
      "\"iterations\": {}, \"kv_capacity_tokens\": {}}}",
      s.requests, json_number(s.end_s), json_number(s.gpus), json_number(s.output_tokens),
      json_number(s.energy_J), json_number(s.mean_power_W), json_number(s.peak_power_W),
      json_number(s.energy_per_request_J), json_number(s.energy_per_1000_output_tokens_J),
      json_number(s.ttft_p50_s), json_number(s.ttft_p99_s), json_number(s.tpot_p50_s),
      json_number(s.tpot_p99_s), json_number(s.e2e_p50_s), json_number(s.e2e_p99_s),
      json_number(s.mean_batch), json_number(s.busy_share), s.iterations, json_number(s.kv_capacity_tokens));
}

std::string summary_text(const ServeRequest& o, const ServedTrace& served) {
  const ServiceSummary& s = served.summary;
  const sim::ServiceConfig& c = served.config;
  return fmt::format(
      "service            {} on {} x {} {} (tp {}{}), {} GPUs; trace {} ({}, rate x {})\n"
      "requests served    {} in {:.1f} s ({:.0f} output tokens)\n"
      "GPU power          mean {:.1f} kW, peak {:.1f} kW over {:g} s intervals\n"
      "GPU energy         {:.2f} kWh: {:.1f} J per request, {:.1f} J per 1,000 output tokens\n"
      "time to 1st token  p50 {:.3f} s, p99 {:.3f} s\n"
      "time per token     p50 {:.1f} ms, p99 {:.1f} ms\n"
      "end to end         p50 {:.2f} s, p99 {:.2f} s\n"
      "batch              {:.1f} sequences on average while busy; {} busy {:.1f} % of the time; {} "
      "iterations\n"
      "KV cache           {:.0f} tokens per {}\n"
      "scheduler          {}\n",
      model_label(o), c.replicas, c.replica.tp * c.replica.pp, c.replica.gpu.id, c.replica.tp,
      c.replica.pp > 1 ? fmt::format(", pp {}", c.replica.pp) : std::string(), s.gpus, served.trace.name,
      served.trace.format, o.rate_scale, s.requests, s.end_s, s.output_tokens, s.mean_power_W / 1e3,
      s.peak_power_W / 1e3, c.interval_s, s.energy_J / 3.6e6, s.energy_per_request_J,
      s.energy_per_1000_output_tokens_J, s.ttft_p50_s, s.ttft_p99_s, 1e3 * s.tpot_p50_s, 1e3 * s.tpot_p99_s,
      s.e2e_p50_s, s.e2e_p99_s, s.mean_batch, c.replica.pp > 1 ? "engines (pipeline stages)" : "replicas",
      100.0 * s.busy_share, s.iterations, s.kv_capacity_tokens, c.replica.pp > 1 ? "engine" : "replica",
      c.scheduling == sim::ServiceScheduling::disaggregated
          ? fmt::format(
                "disaggregated: {} prompt and {} decode replicas, keys and values over {:g} GB/s a GPU",
                sim::prefill_pool(c), c.replicas - sim::prefill_pool(c), c.kv_link_Bps / 1e9)
          : std::string(sim::to_string(c.scheduling)));
}

std::string power_csv(const ServedTrace& served) {
  std::string out = "time_s,power_W\n";
  for (std::size_t i = 0; i < served.run.power_W.size(); ++i)
    out += fmt::format("{},{}\n", double(i) * served.config.interval_s, served.run.power_W[i]);
  return out;
}

std::string requests_csv(const ServedTrace& served) {
  std::string out = "record,replica,arrival_s,input_tokens,output_tokens,first_token_s,end_s\n";
  for (const auto& r : served.run.requests)
    out += fmt::format("{},{},{},{},{},{},{}\n", r.record, r.replica, r.arrival_s, r.input_tokens,
                       r.output_tokens, r.first_token_s, r.end_s);
  return out;
}

}  // namespace fleetwatt::runs
