// What a job reports when it is handed over (finished, or held at the horizon): the row of the job table,
// read from the job and never written back. The engine's Job holds the state machine's working fields
// (events, phase clocks, caps, network handles); a record holds only what a job's reader may see, each
// figure in SI units with NaN where it does not apply, so that the result writer needs no knowledge of how
// the engine runs a job. A record is a view: valid while the job it was taken from is.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/sim/fleet/job.hpp"

namespace fleetwatt::sim {

struct JobRecord {
  const jobs::JobSpec& spec;         ///< as submitted (id, class, GPUs, epochs, where it came from)
  std::span<const GpuIndex> gpus{};  ///< the GPUs it ran on (empty: never started)
  std::string_view gpu{};            ///< GPU preset id of its node group (empty: never started)
  JobState state = JobState::pending;
  double start_s = 0.0;  ///< NaN: never started
  double end_s = 0.0;    ///< NaN: not finished by the horizon
  std::uint32_t epochs_done = 0;
  double peak_W = 0.0, peak_s = 0.0;      ///< per GPU, per epoch, as last run
  double valley_W = 0.0, valley_s = 0.0;  ///< per GPU, per epoch
  double energy_J = 0.0;                  ///< all its GPUs, up to the horizon
  double paused_gpu_s = 0.0;              ///< GPU time lost to pauses
  JobParts parts{};
  double step_s = 0.0;  ///< a step-level job's step period as last simulated, uncapped; NaN: drawn by epochs
  /// The run smooths some job: smoothing's extra GPU energy (0: not this job).
  std::optional<double> smoothing_J{};
  const JobFailures* failures = nullptr;  ///< the run has [failures]: this job's interruptions
};

/// The record of `job`.
[[nodiscard]] JobRecord record_of(const Job& job);

}  // namespace fleetwatt::sim
