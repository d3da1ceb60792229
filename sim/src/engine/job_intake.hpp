// Job intake: what a job must satisfy before the engine holds it, beyond its size (check_gpu_count,
// sim/fleet/fleet_layout.hpp): the user's explicit phase powers against the GPU, and a predicted plan's
// numbers; each failure is bad input located at the job's place (ConfigError), raised before anything is
// written. The engine draws jobs and keeps them; the checks live here so that they read as one list.
#pragma once

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"

#include <cstdint>
#include <string_view>

namespace fleetwatt::sim {

/// Checks a job's plan on one GPU type: explicit phases are the user's numbers and must fit the GPU; a
/// predicted plan must be finite, positive and representable by the clock. A predicted part above the TDP
/// (a fitted formula far outside its data, say) is capped at it; returns whether any was.
[[nodiscard]] bool check_plan(const jobs::JobSpec& spec, jobs::EpochPlan& plan,
                              const models::GpuHardware& gpu, std::string_view predictor);

/// Checks a job's whole length, `epochs` epochs of `plan`, against the clock: a run longer than
/// core::kMaxInputSeconds would overflow the time a scheduler adds it to (sjf and easy sum start and length),
/// so it is bad input at the job's epochs (ConfigError), whatever the policy.
void check_whole_length(const jobs::JobSpec& spec, const jobs::EpochPlan& plan, std::uint32_t epochs);

}  // namespace fleetwatt::sim
