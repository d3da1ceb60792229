// An LLM service played on a request trace, as `fleetwatt serve` prints it and fleetwatt.serve() returns it:
// the request (trace, model, GPU, replicas, batching; from flags or keywords), the run, its summary (power,
// energy per request and per 1,000 output tokens, latency percentiles, batch) and the texts both print.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/jobs/request_source.hpp"
#include "fleetwatt/jobs/request_trace.hpp"
#include "fleetwatt/sim/serving/service_run.hpp"

namespace fleetwatt::runs {

/// What to serve: `fleetwatt serve`'s options with their defaults.
struct ServeRequest {
  /// `model`: a zoo decoder, or the name of the decoder `model_shape` gives (empty: "custom"). A shape is
  /// given when its layers are; a zoo name beside it is refused (the zoo fixes that model's shape).
  std::string trace, model, gpu = "h100-sxm";
  jobs::ModelShape model_shape;
  std::uint32_t tp = 1, replicas = 1, max_batch = 256, max_batched_tokens = 8192;
  /// Pipeline stages per replica (each of tp GPUs); a replica of pp stages serves as pp engines of max_batch
  /// sequences each (models/serving/serving_iteration.hpp).
  std::uint32_t pp = 1;
  double memory_fraction = 0.9, rate_scale = 1.0, horizon_s = 0.0, interval_s = 1.0;
  /// Decode-only iterations replay a CUDA graph (no host time per layer); false: every kernel launched from
  /// the host (models/serving/serving_iteration.hpp).
  bool cuda_graphs = true;
  /// How each iteration is filled: a name of sim::service_schedulers() ("fcfs", "prefill_priority").
  std::string scheduler = "fcfs";
  /// The disaggregated scheduler's pools: replicas that run prompts (0: its default) and each GPU's link for
  /// the keys and values handed to the decode replicas, GB/s (0: its default).
  std::uint32_t prefill_replicas = 0;
  double kv_link_gbytes_per_s = 0.0;
  /// Generated arrivals instead of the trace's own (jobs/request_generator.hpp): this mean rate (requests/s)
  /// over the horizon (a day when horizon_s is 0), with the hourly curve ("24 comma-separated values",
  /// empty: flat; "trace": the trace's own, jobs/hourly_rates.hpp) from start_hour, gamma inter-arrivals of
  /// shape `burstiness` and the seed; the trace gives the prompt and generation lengths. 0: play the trace.
  double generate_rate = 0.0, start_hour = 0.0, burstiness = 1.0;
  std::string hourly;
  std::uint64_t seed = 1;
  /// "exact" (every request and iteration: sim/serving/service_run.hpp) or "fleet" (intervals of a fluid
  /// model: sim/serving/service_fleet.hpp).
  std::string mode = "exact";
  /// Parking and waking replicas by load (fleet mode only; off unless enabled).
  sim::Autoscale autoscale;
  /// Service-level objective: a request meets it when its first token comes within slo_ttft_s and each
  /// later token within slo_tpot_s on average (0: no bound of that kind; both 0: no SLO).
  double slo_ttft_s = 0.0, slo_tpot_s = 0.0;
  /// Where errors say the request came from, and how they name an option (`--max-batch` on the command
  /// line, the keyword `max_batch` in Python).
  std::string origin = "command line";
  bool keyword_names = false;
  [[nodiscard]] std::string option_name(std::string_view flag) const;
};

/// What a planner and an operator read from a run.
struct ServiceSummary {
  std::size_t requests = 0;
  double gpus = 0.0, output_tokens = 0.0;
  double end_s = 0.0, energy_J = 0.0, mean_power_W = 0.0, peak_power_W = 0.0;
  double energy_per_request_J = 0.0, energy_per_1000_output_tokens_J = 0.0;
  double ttft_p50_s = 0.0, ttft_p99_s = 0.0, tpot_p50_s = 0.0, tpot_p99_s = 0.0, e2e_p50_s = 0.0,
         e2e_p99_s = 0.0;
  double mean_batch = 0.0;  ///< running sequences, time-weighted over the replicas' busy time
  double busy_share = 0.0;  ///< replicas' busy time / (replicas x end_s)
  std::uint64_t iterations = 0;
  double kv_capacity_tokens = 0.0;
};

/// A served trace.
struct ServedTrace {
  sim::ServiceConfig config;
  jobs::RequestTrace trace;  ///< as played (scaled, filled)
  sim::ServiceRun run;
  ServiceSummary summary;
  bool fleet = false;  ///< played in fleet mode
};

/// One iteration of a replica running a single sequence of one token: the least time any token takes.
[[nodiscard]] double shortest_iteration_s(const sim::ServiceConfig& config);

/// The service a request describes, checked (a ConfigError at the option for a bad one: an unknown model or
/// GPU, a model that is not a decoder or does not fit, tp on a GPU without NVLink). A model given by its
/// shape is counted in Llama's layout (models::decoder_from_shape); its errors name the model-shape option.
[[nodiscard]] sim::ServiceConfig service_config(const ServeRequest& request);
/// The model as a summary or an error names it: the zoo name, or the given shape's name with its depth and
/// width ("custom (80 layers, hidden 8192)").
[[nodiscard]] std::string model_label(const ServeRequest& request);
/// The requests it plays, one at a time: `read` (the trace file as read) replayed at the request's rate
/// and horizon, or arrivals generated with lengths drawn from it. `read` must outlive the source.
[[nodiscard]] std::unique_ptr<jobs::RequestSource> request_source(const ServeRequest& request,
                                                                  const jobs::RequestTrace& read);

/// Checks the request (a ConfigError at the option for a bad one: an unknown model or GPU, a model that is
/// not a decoder or does not fit, tp on a GPU without NVLink) and reads the trace (TraceFormatError at a
/// bad record), scaled and filled: a ServedTrace without its run yet.
[[nodiscard]] ServedTrace prepare_service(const ServeRequest& request);
/// The same for a request whose service is already checked (`config`, service_config's) and whose trace
/// file is already read (`read`).
[[nodiscard]] ServedTrace prepare_service(const ServeRequest& request, sim::ServiceConfig config,
                                          const jobs::RequestTrace& read);
/// Plays a prepared trace: its run and summary.
void play(ServedTrace& served);
/// Both.
[[nodiscard]] ServedTrace serve(const ServeRequest& request);

[[nodiscard]] ServiceSummary summarize(const sim::ServiceRun& run, const sim::ServiceConfig& config);
/// The summary as one JSON object (what `serve --json` prints).
[[nodiscard]] std::string summary_json(const ServiceSummary& s);
/// The summary as `serve` prints it.
[[nodiscard]] std::string summary_text(const ServeRequest& request, const ServedTrace& served);
/// CSV time_s,power_W of the service's GPUs per interval.
[[nodiscard]] std::string power_csv(const ServedTrace& served);
/// CSV of each request: record, replica, arrival_s, input_tokens, output_tokens, first_token_s, end_s.
[[nodiscard]] std::string requests_csv(const ServedTrace& served);

}  // namespace fleetwatt::runs
