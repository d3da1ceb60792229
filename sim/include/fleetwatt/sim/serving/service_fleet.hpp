// A serving service in fleet mode, for campus scale: a fluid model of continuous batching by interval
// instead of every request and iteration. The requests arriving in one interval of the power series form a
// cohort, admitted together (oldest first, while the replicas' batches hold them) and decoding together:
// each interval, the replicas' running sequences, shared evenly, run iterations of the serving iteration
// model at their batch and mean context, a share of them also running one of the interval's admitted
// prompts whole (as exact mode's chunked prefill does), so every running sequence generates interval / T
// tokens at their mean time T, and a prompt's first token comes one prompt iteration after it arrives; a
// cohort's members end, shortest generation first, in the interval where its count passes their length. Its
// cost is per interval and unfinished cohort, not per request or iteration. Power per interval: each replica
// at the iteration's draw, or for the share of the interval it runs one sequence when it has fewer, at its
// floor otherwise. What the requests did per interval (IntervalLoad) follows the same cohorts: a cohort's
// prompts in its admission interval, each member in the batch from its arrival or the interval's start to its
// end, and its tokens after each member's first on the cohort's count. With disaggregated pools the prompt
// replicas are a queue of work carried from interval to interval: a cohort is admitted while they have time
// left in the interval, waits for the work ahead of it, and decodes on the decode replicas once its members'
// keys and values have crossed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleetwatt/jobs/request_source.hpp"
#include "fleetwatt/sim/serving/service_run.hpp"

namespace fleetwatt::sim {

/// What a fleet-mode run tells as it goes.
class FleetServiceSink {
 public:
  virtual ~FleetServiceSink() = default;
  /// The request drawn `seq`-th (from 0) has ended: its times, tokens, replica and record.
  virtual void request_done(std::uint64_t seq, const ServedRequest& request) = 0;
  /// Interval k (from 0) is over: the service's GPUs' mean power over it, W, the requests that arrived in it,
  /// the replicas active (serving) in it and what the requests did in it. No request reported after it ends
  /// before the interval's end.
  virtual void interval_done(std::size_t k, double power_W, std::uint64_t arrivals, double active_replicas,
                             const IntervalLoad& load) = 0;
};

/// A fleet-mode run's totals.
struct FleetTotals {
  double energy_J = 0.0, end_s = 0.0, busy_s = 0.0, sequence_seconds = 0.0, kv_capacity_tokens = 0.0;
  std::uint64_t iterations = 0, requests = 0;
};

/// Plays the requests `source` gives (in arrival order; each drawn when its interval comes, so memory
/// follows the requests in flight, not their number) on the service in fleet mode, telling `sink` each
/// interval and each ended request, until the source is exhausted and every request has ended or, when
/// `stop_s` > 0, after the interval that reaches stop_s. Throws core::TraceFormatError at a request's record
/// when its prompt and generation need more KV cache than a replica holds, std::invalid_argument for a config
/// kv_capacity_tokens refuses.
FleetTotals play_service_fleet(const ServiceConfig& config, jobs::RequestSource& source,
                               const std::string& trace_name, FleetServiceSink& sink, double stop_s = 0.0);

/// Plays `requests` (in arrival order) on the service in fleet mode: the same outputs as run_service
/// (requests' times, power per interval, energy; iterations, busy_s and sequence_seconds as the intervals
/// imply them). Throws as run_service does.
[[nodiscard]] ServiceRun run_service_fleet(const ServiceConfig& config,
                                           const std::vector<jobs::Request>& requests,
                                           const std::string& trace_name);

}  // namespace fleetwatt::sim
