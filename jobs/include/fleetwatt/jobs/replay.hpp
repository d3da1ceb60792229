// A scenario's whole workload when it replays a trace or uses a cluster preset: those jobs need the
// predictor's run-time estimate (to match recorded run times), which only the caller can supply.
#pragma once

#include <atomic>
#include <vector>

#include "fleetwatt/jobs/job_inference.hpp"
#include "fleetwatt/jobs/trace.hpp"
#include "fleetwatt/jobs/workload_config.hpp"

namespace fleetwatt::jobs {

/// The trace options a [workload.trace] section describes, for a fleet of `fleet_gpus` (larger jobs clip).
[[nodiscard]] TraceOptions trace_options(const TraceConfig& config, std::uint64_t seed,
                                         std::uint32_t fleet_gpus);

/// Every job of a workload drawn with `seed` on a fleet whose largest job gets `fleet_gpus` (larger jobs
/// clip): explicit and [workload.generator] jobs (build_workload), then the replayed
/// trace and the preset's jobs, sorted by submit time (stable) and renumbered 0..n-1 when more than one
/// source contributes. `estimate` may be empty (no run-time matching). `stop` is polled as the jobs are
/// drawn and matched (raised: core::Interrupted).
[[nodiscard]] std::vector<JobSpec> build_scenario_workload(const WorkloadConfig& workload, std::uint64_t seed,
                                                           std::uint32_t fleet_gpus,
                                                           const RuntimeEstimate& estimate,
                                                           const std::atomic<bool>* stop = nullptr);

}  // namespace fleetwatt::jobs
