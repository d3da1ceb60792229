// Reading recorded GPU power logs: the CSV that `nvidia-smi --query-gpu=... --format=csv` writes (units in
// the header and in the values, `[N/A]` fields, one or many GPUs, an optional index column), plain
// `time_s,power_W[,gpu]` CSV, a CSV of DCGM fields (`DCGM_FI_DEV_POWER_USAGE`, `DCGM_FI_PROF_SM_ACTIVE`),
// and DCGM metrics in Prometheus's text format with timestamps (`promtool tsdb dump`). Irregular sampling,
// gaps and duplicated timestamps are kept and reported, not smoothed away: the caller decides what to do with
// them.
#pragma once

#include <cstddef>
#include <filesystem>
#include <istream>
#include <string>
#include <vector>

namespace fleetwatt::models::fit {

/// The power samples of one GPU, in time order.
struct GpuPowerSeries {
  int index = 0;                ///< GPU index (the `index` column, or the order of appearance per timestamp)
  std::vector<double> time_s;   ///< seconds since the trace's first sample
  std::vector<double> power_W;  ///< board power draw
  /// SM activity (DCGM_FI_PROF_SM_ACTIVE: the fraction of time an SM had work, 0 to 1) where the log has it,
  /// with its own times (a DCGM dump's series are sampled apart from the power's); empty otherwise.
  std::vector<double> sm_time_s;
  std::vector<double> sm_active;
  /// The board's power limit in force and the highest it can be set to (nvidia-smi `power.limit`,
  /// `power.max_limit` or `gpu_max_power`; DCGM_FI_DEV_POWER_MGMT_LIMIT), the last reading of each; 0 where
  /// the log has none.
  double limit_W = 0.0;
  double max_limit_W = 0.0;
};

/// What the reader noticed about the sampling; nothing here is silently repaired.
struct TraceReport {
  std::size_t rows = 0;           ///< data rows read (power readings, in a Prometheus log)
  std::size_t missing_power = 0;  ///< rows whose power field was `[N/A]` or empty (skipped)
  std::size_t duplicated_times =
      0;                 ///< samples whose timestamp repeated the previous one of that GPU (skipped)
  std::size_t gaps = 0;  ///< sampling intervals longer than 3x the median interval
  double gap_s = 0.0;    ///< total length of those gaps
  double median_interval_s = 0.0;  ///< typical sampling interval
  double min_interval_s = 0.0;     ///< shortest sampling interval between kept samples
  double max_interval_s = 0.0;     ///< longest one
  bool irregular = false;          ///< intervals vary by more than 20 % of the median (excluding gaps)
  std::size_t other_samples = 0;   ///< Prometheus samples of metrics other than power and SM activity
};

/// A power log: one series per GPU, sorted by GPU index.
struct PowerTrace {
  std::string source;  ///< file name, for messages
  std::vector<GpuPowerSeries> gpus;
  TraceReport report;

  /// The series of GPU `index`; throws ConfigError naming the known indices when it is absent.
  [[nodiscard]] const GpuPowerSeries& gpu(int index) const;
};

/// Reads a power log; throws jobs::TraceFormatError naming the file, line, column and field of a bad
/// record (no power column, a non-numeric value, time running backwards).
[[nodiscard]] PowerTrace read_power_trace(const std::filesystem::path& path);
/// Same, from a stream; `source` names it in messages.
[[nodiscard]] PowerTrace read_power_trace(std::istream& in, const std::string& source);

/// The samples of `trace` from `from_s` to `to_s` (seconds since its first sample, both included), their
/// times unchanged; a GPU with none there is left out, and the report stays the whole log's. Throws
/// std::invalid_argument unless from_s < to_s.
[[nodiscard]] PowerTrace trace_span(const PowerTrace& trace, double from_s, double to_s);

/// Trapezoidal integral of power over time (J) of one series.
[[nodiscard]] double trapezoid_energy_J(const GpuPowerSeries& series) noexcept;

}  // namespace fleetwatt::models::fit
