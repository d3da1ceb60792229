// One LLM service's series and totals as the result file keeps them under /services/<name>: what the
// service's GPUs drew and what its requests saw, interval by interval over the run's window.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fleetwatt::results {

/// Latency percentiles of a set of requests (NaN where there is none): time to first token, time per
/// output token after the first (requests of more than one), and end to end (arrival to last token).
struct ServiceLatency {
  double ttft_p50_s = 0.0, ttft_p99_s = 0.0, tpot_p50_s = 0.0, tpot_p99_s = 0.0;
  double e2e_p50_s = 0.0, e2e_p99_s = 0.0;
};

/// An exact-mode service's requests, one row each in arrival order: every request the run played, those
/// ending at or after the horizon included (they are not served in the window).
struct ServiceRequestRows {
  std::vector<double> arrival_s, first_token_s, end_s;
  std::vector<std::int64_t> input_tokens, output_tokens, replica;
};

struct ServiceRecord {
  std::string name, model, gpu, mode, trace;
  std::string scheduler = "fcfs";  ///< how its replicas fill an iteration (sim::service_schedulers())
  std::uint32_t tp = 1, pp = 1, replicas = 1, gpus = 1, max_batch = 0;
  double interval_s = 1.0;
  /// Per interval from time zero to the horizon.
  std::vector<double> power_W;              ///< the service's GPUs, interval mean
  std::vector<std::int64_t> arrivals;       ///< requests arriving in the interval
  std::vector<std::int64_t> completions;    ///< requests ending in it
  std::vector<double> output_tokens_per_s;  ///< output tokens of the requests ending in it, over the interval
  std::vector<double> replicas_active;      ///< replicas serving (autoscaling parks the others)
  std::vector<std::int64_t> admitted;       ///< requests entering a batch (their prompt begins) in it
  std::vector<double> queued;               ///< requests waiting to enter a batch, interval mean
  std::vector<double> running;              ///< sequences in the replicas' batches, interval mean
  /// running over the active replicas' batch slots (replicas_active x max_batch), 0 to 1
  std::vector<double> batch_occupancy;
  std::vector<double> prefill_tokens_per_s;  ///< prompt tokens processed in the interval, over its length
  std::vector<double> decode_tokens_per_s;   ///< tokens generated after each request's first, likewise
  /// Latency of the requests ending in the interval (NaN: none ended): time to first token, time per output
  /// token after the first (requests of more than one), both at the 50th and 99th percentile.
  std::vector<double> ttft_p50_s, ttft_p99_s, tpot_p50_s, tpot_p99_s;
  // Totals over the window.
  double energy_J = 0.0;                                ///< the service's GPUs
  std::int64_t requests_served = 0, output_tokens = 0;  ///< requests ending in the window, their tokens
  ServiceLatency latency;  ///< of the requests ending in the window, within 1 % (log-binned counts)
  /// Service-level objective (both 0: none): its bounds, and the requests ending in each interval that met
  /// it (first token within slo_ttft_s, later tokens within slo_tpot_s on average), and in the window.
  double slo_ttft_s = 0.0, slo_tpot_s = 0.0;
  std::vector<std::int64_t> slo_met;
  std::int64_t slo_met_total = 0;
  /// Absorbing the other GPUs' swings: its work's time-mean and largest lag behind its plan (s), and what it
  /// ran ahead (+) or behind (-) at the horizon (J).
  bool absorbing = false;
  double absorb_mean_lag_s = 0.0, absorb_max_lag_s = 0.0, absorb_bank_J = 0.0;
  std::vector<double> absorb_lag_s;  ///< absorbing: the work's lag behind the plan, interval mean
  /// Exact mode's request rows (empty in fleet mode, which streams its requests and keeps none).
  ServiceRequestRows requests;
};

}  // namespace fleetwatt::results
