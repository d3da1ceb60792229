// A scenario's [workload] section as the job sources read it: the horizon and warm-up, explicit jobs, and
// the generator, trace replay or cluster preset that draws the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"

namespace fleetwatt::jobs {

/// One entry of a generator's job mix.
struct MixEntry {
  double weight = 1.0;
  std::string job_class;
  SourceLocation class_origin;
  std::vector<std::uint32_t> n_gpus{1};
  std::vector<double> n_gpus_weights;  ///< empty: uniform over n_gpus
  std::uint32_t epochs_min = 1, epochs_max = 1;
  double samples_min = 0.0, samples_max = 0.0;  ///< 0: the class's reference size
};

/// Poisson arrivals whose rate follows a cosine day/night profile.
struct GeneratorConfig {
  double mean_rate_per_s = 0.0;
  double diurnal_amplitude = 0.0;  ///< 0..1: rate = mean * (1 + a cos(2 pi (t - peak) / day))
  double peak_time_of_day_s = 14 * 3600.0;
  double start_s = 0.0;
  double end_s = 0.0;  ///< defaults to the horizon
  std::vector<MixEntry> mix;
  SourceLocation rate_where;  ///< where rate_per_hour was given
};

/// [workload.trace]: a recorded trace replayed as the workload (see trace.hpp for the formats).
struct TraceConfig {
  std::filesystem::path file;  ///< resolved against the scenario's folder
  std::string format;          ///< a trace_format_names() entry; empty: guessed from the file
  SourceLocation where;
  std::optional<double> from_s, to_s;  ///< submit-time window, seconds after the first submission
  double arrival_scale = 1.0;
  /// Replays on a fleet this many times the scenario's (nodes rounded) with arrivals that many times as
  /// frequent, so the load per GPU stays the trace's. Applied by the loader to fleet.nodes and arrival_scale.
  double fleet_scale = 1.0;
  bool strict = false;
  std::size_t max_jobs = 0;
  double swf_procs_per_gpu = 1.0;
  std::filesystem::path pai_task_table;
  double deferrable_fraction = 0.0;
  double defer_window_s = 12 * 3600.0;
};

/// [workload.preset]: jobs generated from a cluster-calibrated preset (see cluster_presets.hpp).
struct PresetConfig {
  std::string cluster;
  SourceLocation where;
  double mean_rate_per_s = 0.0;
  double start_s = 0.0, end_s = 0.0;
  double deferrable_fraction = 0.0;
  double defer_window_s = 12 * 3600.0;
};

struct WorkloadConfig {
  double horizon_s = 86400.0;  ///< simulated span [0, horizon)
  /// [workload] warmup_s: simulated before 0 and kept out of every output, so the fleet is at its steady
  /// occupancy when the window opens. Absent: runs::prepare_run sets the default (jobs/warmup.hpp).
  std::optional<double> warmup_s;
  SourceLocation warmup_where;  ///< where warmup_s was given (the [workload] table when absent)
  /// [workload] warmup_arrivals: "continued" (the generator's own process before 0, drawn from a stream of
  /// its own) or "periodic" (the window's own arrivals repeated before it: a typical day that tiles).
  bool periodic_warmup = false;
  SourceLocation periodic_where;  ///< where warmup_arrivals was given (the [workload] table when absent)
  std::vector<JobSpec> jobs;      ///< explicit [[workload.jobs]] and jobs_csv rows
  std::optional<GeneratorConfig> generator;
  std::optional<TraceConfig> trace;
  std::optional<PresetConfig> preset;
};

}  // namespace fleetwatt::jobs
