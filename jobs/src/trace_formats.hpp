// The per-format trace parsers and what they share. Each parser turns records into RawJobs on the trace's
// own clock and leaves windowing, scaling and inference to trace_reader.cpp. Private to jobs.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/timestamp.hpp"
#include "fleetwatt/jobs/trace.hpp"
#include "trace_text.hpp"

namespace fleetwatt::jobs::trace_detail {

/// A job as a parser read it. spec.submit_s is on the trace's own clock (seconds).
struct RawJob {
  JobSpec spec;
  std::uint32_t line = 0;
  std::uint32_t missing = 0;  ///< `inferred` bits of the fields the record lacks
  bool no_runtime = false;    ///< never started, or no recorded end: cannot be replayed
  /// The field spec.submit_s was read from, for an error found once the trace is re-based.
  const char* submit_field = "submit_s";
};

/// Collects malformed records, or throws at the first one in strict mode.
class RecordErrors {
 public:
  RecordErrors(std::string file, bool strict, std::vector<SkippedRecord>& out)
      : file_(std::move(file)), strict_(strict), out_(out) {}
  /// Reports a bad field of the record at `line` (column 0 when unknown).
  void bad(std::uint32_t line, const std::string& field, const std::string& reason, std::uint32_t column = 0);
  /// A problem with the file as a whole (missing column, unreadable): always thrown.
  [[noreturn]] void fatal(std::uint32_t line, const std::string& field, const std::string& reason) const;
  [[nodiscard]] const std::string& file() const noexcept { return file_; }

 private:
  std::string file_;
  bool strict_;
  std::vector<SkippedRecord>& out_;
};

/// Fields a trace never records: everything the predictor needs about the model and its training.
inline constexpr std::uint32_t kModelFields = inferred::job_class | inferred::model | inferred::batch_size |
                                              inferred::dataset_samples | inferred::epochs |
                                              inferred::precision;

/// A CSV file with a header row (read by core's tokenizer): column lookup by name (case-insensitive), with
/// a clear error for a missing column.
class HeaderCsv {
 public:
  HeaderCsv(std::istream& in, RecordErrors& errors);
  /// Index of a required column; fatal error naming the columns present otherwise.
  [[nodiscard]] std::size_t require(const std::string& name) const;
  [[nodiscard]] std::optional<std::size_t> find(const std::string& name) const;
  /// The next non-empty record; false at the end. A record with the wrong number of fields is reported.
  bool next(std::vector<std::string>& fields);
  /// Line where the current record starts.
  [[nodiscard]] std::uint32_t line() const noexcept { return row_.line; }
  /// The current record with the line and column of each field, for messages.
  [[nodiscard]] const core::CsvRow& row() const noexcept { return row_; }
  [[nodiscard]] const std::vector<std::string>& header() const noexcept { return header_; }

 private:
  core::CsvReader reader_;
  RecordErrors& errors_;
  std::vector<std::string> header_;
  core::CsvRow row_;
};

/// The largest magnitude a trace's own clock may read, in seconds: beyond any time stamp with a four-digit
/// year (2.5e11 s from 1970), so no real trace meets it, while a corrupt value (1e300) is refused at its
/// field instead of becoming the trace's origin. Durations, and submissions once re-based to the trace's
/// first, must lie within core::kMaxInputSeconds as a scenario's own times do.
inline constexpr double kMaxTraceClockS = 1e12;

/// The most GPUs a trace job may ask for: JobSpec::n_gpus holds 32 bits.
inline constexpr double kMaxTraceGpus = 4294967295.0;

/// Total GPUs asked for (possibly fractional) as whole GPUs and a per-GPU share: 0.46 -> (1, 0.46),
/// 1.5 -> (2, 0.75), 4 -> (4, 1).
void set_gpus(JobSpec& spec, double total_gpus);

std::vector<RawJob> parse_philly(std::istream& in, RecordErrors& errors);
std::vector<RawJob> parse_pai2020(std::istream& jobs, std::istream& tasks, RecordErrors& job_errors,
                                  RecordErrors& task_errors);
std::vector<RawJob> parse_pai2020_sim(std::istream& in, RecordErrors& errors);
std::vector<RawJob> parse_alibaba2023(std::istream& in, RecordErrors& errors);
std::vector<RawJob> parse_helios(std::istream& in, RecordErrors& errors);
std::vector<RawJob> parse_swf(std::istream& in, RecordErrors& errors, double procs_per_gpu);
std::vector<RawJob> parse_job_table(std::istream& in, RecordErrors& errors);

}  // namespace fleetwatt::jobs::trace_detail
