// Recorded job traces as workloads. Readers for the public GPU-cluster traces (Microsoft Philly, Alibaba PAI
// 2020 tables and its simulator CSV, Alibaba GPU 2023, SenseTime Helios, the Standard Workload Format) and
// fleetwatt's own job table map what each records to JobSpecs; a common pass then applies the time window,
// scaling, inference of missing fields and run-time matching. Malformed records are reported with their
// line and skipped, or refused (TraceFormatError) in strict mode.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/interrupted.hpp"
#include "fleetwatt/core/registry.hpp"
#include "fleetwatt/jobs/job_inference.hpp"
#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/jobs/param_set.hpp"

namespace fleetwatt::jobs {

enum class TraceFormat {
  fleetwatt_csv,  ///< fleetwatt's job table: one job per row, every JobSpec field (see job_table_csv.hpp)
  philly,         ///< Microsoft Philly cluster_job_log (JSON array of jobs with attempts)
  pai2020,        ///< Alibaba PAI 2020 pai_job_table.csv joined with pai_task_table.csv (headerless CSVs)
  pai2020_sim,    ///< Alibaba PAI 2020 simulator CSV (job_id, user, submit_time, duration, num_gpu, ...)
  alibaba2023,    ///< Alibaba GPU 2023 openb_pod_list CSV (creation/scheduled/deletion times, GPU sharing)
  helios,         ///< SenseTime Helios cluster_log.csv
  swf,            ///< Standard Workload Format (Parallel Workloads Archive), 18 blank-separated fields
};

struct TraceOptions;
namespace trace_detail {
struct RawJob;
class RecordErrors;
}  // namespace trace_detail

/// How a format reads a stream into jobs on the trace's own clock (its parsers are private to jobs,
/// src/trace_formats.hpp); the window, scaling and inference are the common pass's.
using TraceParser = std::vector<trace_detail::RawJob> (*)(std::istream& in, const TraceOptions& options,
                                                          trace_detail::RecordErrors& errors);
/// A trace format as a scenario names it ([workload.trace] format), with the parameters only it takes
/// (every format also takes trace_common_params()) and its parser.
using TraceFormatEntry = core::RegistryEntry<TraceParser>;
using TraceFormats = core::Registry<TraceParser>;
/// Every trace format, in the order of TraceFormat (`fleetwatt list` prints them).
[[nodiscard]] const TraceFormats& trace_formats();
/// The entry of a format.
[[nodiscard]] const TraceFormatEntry& trace_format_entry(TraceFormat f);
/// The [workload.trace] keys every format takes (file, window, scaling, deferral).
[[nodiscard]] const ParamSpecs& trace_common_params();

[[nodiscard]] const char* to_string(TraceFormat f) noexcept;
/// Every format name, in declaration order.
[[nodiscard]] std::vector<std::string> trace_format_names();
/// The format of that name; a ConfigError at `where` listing the known names otherwise.
[[nodiscard]] TraceFormat parse_trace_format(std::string_view name, const SourceLocation& where = {});
/// The format a file's extension or first line suggests, if any (pai2020's headerless table needs naming).
[[nodiscard]] std::optional<TraceFormat> guess_trace_format(const std::filesystem::path& file);

struct TraceOptions {
  TraceFormat format = TraceFormat::fleetwatt_csv;
  bool strict = false;  ///< refuse the file at the first malformed record instead of skipping
  /// Window on submit time, in seconds after the trace's first submission: [from, to). Kept jobs are
  /// shifted so that `from` becomes time zero.
  std::optional<double> from_s;
  std::optional<double> to_s;
  double arrival_scale = 1.0;  ///< arrival-rate multiplier: submit times (after the window) are divided by it
  std::uint32_t max_gpus = 0;  ///< clip larger jobs to this many GPUs (the fleet's size); 0: no clip
  std::size_t max_jobs = 0;    ///< keep only the first N jobs (after the window); 0: all
  double swf_procs_per_gpu = 1.0;  ///< SWF counts processors: GPUs = ceil(processors / this)
  std::filesystem::path
      pai_task_table;      ///< pai2020: the task table (default: pai_task_table.csv beside the job table)
  std::uint64_t seed = 1;  ///< seeds the inference of missing fields
  InferenceConfig inference;
  RuntimeEstimate estimate;             ///< empty: epochs stay as drawn (no run-time matching)
  double deferrable_fraction = 0.0;     ///< share of jobs marked deferrable (drawn with the seed)
  double defer_window_s = 12 * 3600.0;  ///< deadline = submit + run time + this, for deferrable jobs
  /// Polled while the kept jobs are matched to their run times (raised: core::Interrupted).
  const std::atomic<bool>* stop = nullptr;
};

/// One malformed record that was skipped.
struct SkippedRecord {
  SourceLocation where;
  std::string field;
  std::string reason;
};

/// The jobs of a trace and what happened to the records that did not become jobs.
struct TraceRead {
  std::vector<JobSpec> jobs;           ///< ids 0..n-1 in submit order
  std::vector<SkippedRecord> skipped;  ///< malformed records
  std::size_t records = 0;             ///< well-formed records read
  std::size_t no_gpu = 0;              ///< dropped: asked for no GPU (CPU-only jobs)
  std::size_t no_runtime = 0;          ///< dropped: never started, or no recorded end
  std::size_t outside_window = 0;      ///< dropped by from/to or max_jobs
  std::size_t clipped = 0;             ///< jobs whose GPU count was clipped to max_gpus
  double origin_s = 0.0;               ///< the trace's own clock at its first submission
  double worst_match_error = 0.0;      ///< largest relative run-time mismatch left by match_runtime
};

/// Reads a trace file of the given format.
[[nodiscard]] TraceRead read_trace(const std::filesystem::path& file, const TraceOptions& options);
/// Reads a single-stream trace (every format but pai2020, which joins two files); `name` names it in
/// messages.
[[nodiscard]] TraceRead read_trace(std::istream& in, const std::string& name, const TraceOptions& options);
/// Reads a PAI 2020 trace from its two tables (job, task) as streams; the names name them in messages.
[[nodiscard]] TraceRead read_pai2020(std::istream& jobs_in, const std::string& jobs_name,
                                     std::istream& tasks_in, const std::string& tasks_name,
                                     const TraceOptions& options);

/// Summary of a job list, for `fleetwatt trace stats`.
struct TraceStats {
  std::size_t jobs = 0;
  std::size_t by_status[6] = {};     ///< indexed by JobStatus
  double span_s = 0.0;               ///< last submit - first submit
  double gpu_hours = 0.0;            ///< sum of n_gpus x gpu_fraction x run time / 3600
  double allocated_gpu_hours = 0.0;  ///< sum of n_gpus x run time / 3600 (whole GPUs held)
  double gpus_mean = 0.0;            ///< mean of n_gpus x gpu_fraction
  std::uint32_t gpus_max = 0;
  std::vector<std::pair<std::uint32_t, std::size_t>> gpus_histogram;  ///< (n_gpus, jobs), ascending
  /// Run-time distribution (s) over jobs with a recorded run time: mean, quantiles, max.
  double runtime_mean_s = 0.0, runtime_p10_s = 0.0, runtime_p50_s = 0.0, runtime_p90_s = 0.0,
         runtime_p99_s = 0.0, runtime_max_s = 0.0;
  std::size_t with_runtime = 0;
  double wait_mean_s = 0.0, wait_p50_s = 0.0;  ///< recorded queueing delay, over jobs that have one
  std::size_t with_wait = 0;
  std::size_t inferred_jobs = 0;  ///< jobs with at least one inferred field
};

[[nodiscard]] TraceStats trace_stats(const std::vector<JobSpec>& jobs);

/// The q-quantile (0..1) of values by linear interpolation between order statistics (numpy's default);
/// reorders `values` (in linear time). 0 for an empty list.
[[nodiscard]] double quantile(std::vector<double>& values, double q);

}  // namespace fleetwatt::jobs
