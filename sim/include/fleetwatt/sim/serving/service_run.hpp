// A serving service played request by request (the exact mode): replicas of one LLM on tp GPUs each, requests
// dispatched round-robin in arrival order, and each replica running vLLM-style continuous batching: first
// come first served, at most max_batch sequences, at most max_batched_tokens tokens an iteration (each
// running sequence's next token first, then prompt chunks in arrival order: chunked prefill), and a
// sequence admitted only when the KV cache holds its whole prompt and generation (no preemption). Each
// iteration's time and power come from models/serving/serving_iteration.hpp; an idle replica's GPUs hold the
// model at their resident floor. What it gives: each request's first-token and end times, the service's
// power per interval, its energy.
#pragma once

#include <cstdint>
#include <vector>

#include "fleetwatt/jobs/request_trace.hpp"
#include "fleetwatt/models/serving/serving_iteration.hpp"
#include "fleetwatt/sim/serving/service_scheduler.hpp"

namespace fleetwatt::sim {

/// Replicas parked when the load is low and woken when it rises (fleet mode): each interval the service
/// keeps as many active as its sequences need at the target utilisation (running and waiting sequences over
/// target x max_batch), at least min_replicas and at most the service's replicas. Parking is at once; a
/// woken replica serves after wake_s (loading its weights at the resident floor meanwhile).
struct Autoscale {
  bool enabled = false;
  std::uint32_t min_replicas = 1;
  double target_utilisation = 0.7;  ///< running sequences / (active replicas x max_batch) aimed at
  double wake_s = 60.0;
  /// What a parked replica's GPUs draw: idle (the GPU's idle power, its model unloaded) or 0 (powered off).
  bool parked_off = false;
};

struct ServiceConfig {
  models::ServingReplica replica;  ///< the model, GPU, tp and precision of each replica
  std::uint32_t replicas = 1;      ///< all of them (the most active with autoscaling)
  Autoscale autoscale;
  std::uint32_t max_batch = 256;            ///< sequences running at once (vLLM's max_num_seqs)
  std::uint32_t max_batched_tokens = 8192;  ///< tokens an iteration runs (vLLM's max_num_batched_tokens)
  ServiceScheduling scheduling = ServiceScheduling::fcfs;  ///< how an iteration is filled
  /// Disaggregated pools: the replicas that run prompts (0: a quarter of them, at least one; the others
  /// decode), and each GPU's link for the keys and values a prompt hands to its decode replica, bytes/s.
  std::uint32_t prefill_replicas = 0;
  double kv_link_Bps = 50e9;
  /// Share of the GPUs' memory that holds the weights and the KV cache (vLLM's gpu_memory_utilization).
  double memory_fraction = 0.9;
  double interval_s = 1.0;  ///< the power series' interval
  models::ServingConstants constants;
};

/// KV cache an engine holds, in tokens: (memory x tp x pp x memory_fraction - 16-bit weights) / pp over the
/// bytes one token's keys and values take on a stage's tp GPUs for every layer (layers x 2 x kv heads x head
/// width x 2 bytes; a GPU holds at least one kv head). Without pipeline stages an engine is a replica. Throws
/// std::invalid_argument when the weights do not fit, or for a config out of range (no replica, max_batch or
/// max_batched_tokens 0, memory_fraction outside (0, 1], interval not positive).
[[nodiscard]] double kv_capacity_tokens(const ServiceConfig& config);

struct ServedRequest {
  double arrival_s = 0.0, first_token_s = 0.0, end_s = 0.0;
  std::uint32_t input_tokens = 0, output_tokens = 0;
  std::uint32_t replica = 0;
  std::uint32_t record = 0;  ///< the trace's line
};

/// What a service's requests did within one interval of the power series: sums over it, so that a mean is
/// the sum over the interval's length.
struct IntervalLoad {
  double admitted = 0.0;        ///< requests that entered a batch (their prompt began)
  double queued_s = 0.0;        ///< request-seconds waiting to enter a batch
  double running_s = 0.0;       ///< sequence-seconds in a batch (prompt and generation)
  double prefill_tokens = 0.0;  ///< prompt tokens processed
  double decode_tokens = 0.0;   ///< tokens generated after each request's first
};

struct ServiceRun {
  std::vector<ServedRequest> requests;  ///< in arrival order
  /// All the service's GPUs' mean power over each interval from 0 to end_s (the last one over its part up
  /// to end_s).
  std::vector<double> power_W;
  std::vector<IntervalLoad> load;  ///< the same intervals: what the requests did in each
  double energy_J = 0.0;           ///< the same, over the run: the series' powers times their intervals
  double end_s = 0.0;              ///< when the last request ends
  std::uint64_t iterations = 0;
  double busy_s = 0.0;  ///< replica-seconds spent in iterations
  double sequence_seconds =
      0.0;  ///< sum over iterations of running sequences x its time (mean batch = / busy_s)
  double kv_capacity_tokens = 0.0;
};

/// What both modes start from: the KV capacity (a request whose prompt and generation need more than a
/// replica holds refused, a core::TraceFormatError at its record) and each request's arrival, tokens,
/// replica (in turn, by arrival order) and record, its times not yet set.
[[nodiscard]] ServiceRun start_service_run(const ServiceConfig& config,
                                           const std::vector<jobs::Request>& requests,
                                           const std::string& trace_name);
/// Refuses (a core::TraceFormatError at its record) a request whose prompt and generation need more than
/// `kv_capacity_tokens`, what one replica holds.
void check_request_fits(const jobs::Request& request, double kv_capacity_tokens,
                        const std::string& trace_name);
/// Disaggregated pools: the replicas that run the prompts (the first ones; the rest decode).
[[nodiscard]] std::uint32_t prefill_pool(const ServiceConfig& config);
/// Disaggregated pools: the time to move `tokens` tokens' keys and values from a prompt replica to a decode
/// replica, each of the tp x pp GPUs sending its share over its own link (not overlapped with the prompt).
[[nodiscard]] double kv_transfer_s(const ServiceConfig& config, double tokens);
/// A replica of pp pipeline stages serves as pp engines (models::ServingReplica), each with its own batch,
/// KV cache share and queue, and tp GPUs' worth of the replica's draw: the service's engines, replicas x pp.
[[nodiscard]] std::uint32_t serving_engines(const ServiceConfig& config);
/// The service's GPUs: replicas x tp x pp.
[[nodiscard]] double service_gpus(const ServiceConfig& config);
/// An engine's GPUs holding the model while idle: tp x the resident floor.
[[nodiscard]] double engine_idle_W(const ServiceConfig& config);
/// A replica's GPUs holding its model while idle: tp x pp x the resident floor.
[[nodiscard]] double replica_idle_W(const ServiceConfig& config);

/// Plays `requests` (in arrival order) on the service. Throws core::TraceFormatError at a request's record
/// when its prompt and generation need more KV cache than a replica holds, std::invalid_argument for a
/// config kv_capacity_tokens refuses.
[[nodiscard]] ServiceRun run_service(const ServiceConfig& config, const std::vector<jobs::Request>& requests,
                                     const std::string& trace_name);

}  // namespace fleetwatt::sim
