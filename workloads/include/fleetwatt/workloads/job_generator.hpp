// Synthetic workloads: Poisson arrivals with a diurnal rate (sampled by thinning) and a weighted job mix.
#pragma once

#include <cstdint>
#include <vector>

#include "fleetwatt/workloads/job_spec.hpp"
#include "fleetwatt/workloads/scenario.hpp"

namespace fleetwatt::workloads {

/// Generated jobs in arrival order, ids starting at first_id. Deterministic for a given seed on any platform.
[[nodiscard]] std::vector<JobSpec> generate_jobs(const GeneratorConfig& config, std::uint64_t seed,
                                                 std::int64_t first_id);

/// The generator's instantaneous arrival rate (jobs/s) at time t.
[[nodiscard]] double arrival_rate(const GeneratorConfig& config, double t_s);

/// Every job of the scenario: explicit ones, then generated ones, sorted by submit time (stable).
[[nodiscard]] std::vector<JobSpec> build_workload(const Scenario& scenario);

}  // namespace fleetwatt::workloads
