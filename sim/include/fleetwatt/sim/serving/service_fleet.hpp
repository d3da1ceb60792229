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
// floor otherwise.
#pragma once

#include <string>
#include <vector>

#include "fleetwatt/sim/serving/service_run.hpp"

namespace fleetwatt::sim {

/// Plays `requests` (in arrival order) on the service in fleet mode: the same outputs as run_service
/// (requests' times, power per interval, energy; iterations, busy_s and sequence_seconds as the intervals
/// imply them). Throws as run_service does.
[[nodiscard]] ServiceRun run_service_fleet(const ServiceConfig& config,
                                           const std::vector<jobs::Request>& requests,
                                           const std::string& trace_name);

}  // namespace fleetwatt::sim
