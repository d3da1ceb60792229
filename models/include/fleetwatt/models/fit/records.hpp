// Training records: a trace's measured phases joined with the job's metadata into one line of a records
// CSV (what `fleetwatt calibrate` writes), and the generic CSV table that `fleetwatt fit` reads.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/models/fit/segmentation.hpp"
#include "fleetwatt/models/fit/telemetry.hpp"

namespace fleetwatt::models::fit {

/// The square-wave summary of a trace over the selected GPUs: energies are summed over the GPUs, powers
/// and durations are per GPU (the mean over the GPUs).
struct TraceSummary {
  std::string source;
  std::vector<int> gpus;
  std::size_t samples = 0;
  double duration_s = 0.0;
  double energy_J = 0.0;        ///< trapezoidal integral of the raw samples, summed over the GPUs
  double phase_energy_J = 0.0;  ///< the same from the segmented square wave
  double mean_power_W = 0.0;    ///< energy_J / duration_s / GPUs
  double peak_W = 0.0;
  double peak_s = 0.0;
  double valley_W = 0.0;
  double valley_s = 0.0;
  double idle_W = 0.0;
  double idle_s = 0.0;
  std::size_t n_peaks = 0;
  std::size_t n_valleys = 0;
  std::vector<Segmentation> per_gpu;
  /// The epochs found in the log (fit/epochs.hpp), for the record: the mean epoch's duration and the mean
  /// power over the epochs, per GPU; 0 where no epochs were found (summarise_trace leaves them 0).
  double epoch_s = 0.0;
  double epoch_W = 0.0;
  /// The board's power limit in the run and its highest settable limit (the log's readings, the highest
  /// over the GPUs); 0 where the log has none.
  double power_limit_W = 0.0;
  double max_power_limit_W = 0.0;
};

/// Segments every GPU of the trace (or only `gpu`) and summarises it.
[[nodiscard]] TraceSummary summarise_trace(const PowerTrace& trace, std::optional<int> gpu = std::nullopt,
                                           const SegmentOptions& options = {});

/// A job's metadata as it goes into a record. Unknown values stay empty in the CSV.
struct JobRecordMeta {
  std::string model;
  std::optional<double> params;  ///< trainable parameters
  std::optional<double> flops;   ///< forward FLOPs per sample
  std::optional<double> batch_size;
  std::optional<double> data_size;   ///< samples per epoch
  std::optional<double> input_size;  ///< image side or sequence length
  std::optional<double> workers;
  std::optional<double> epochs;  ///< epochs the run trained
  std::optional<double> gpus;
  std::string gpu_type;
};

/// The metadata with a zoo model's counts where it leaves them out: trainable parameters and forward FLOPs
/// per sample (models/zoo/model_zoo.hpp) at the metadata's input size, or at the zoo's default input size,
/// which it then records. Given counts are kept; a model the zoo does not know is returned unchanged. An
/// input size the model cannot take is a ConfigError at `where`, key input_size.
[[nodiscard]] JobRecordMeta with_zoo_counts(JobRecordMeta meta, const core::SourceLocation& where);

/// Reads job metadata from a TOML file (keys: model, params, flops, batch_size, data_size, input_size,
/// workers, epochs, gpus, gpu_type); unknown keys and wrong types are ConfigErrors with file, line and
/// column.
[[nodiscard]] JobRecordMeta read_job_meta_toml(const std::filesystem::path& path);

/// The records CSV header (one line, no newline).
[[nodiscard]] std::string record_header();
/// The header before the epochs found were recorded (without epoch_s and epoch_W): still read, and appended
/// to in its own layout.
[[nodiscard]] std::string record_header_without_epochs();
/// Every layout a records file may have, oldest first, the current one last: each is read, and a file of
/// an earlier one is appended to in its own layout (without the columns added since).
[[nodiscard]] std::vector<std::string> record_headers();
/// One record line (no newline) joining the metadata and the measured phases.
[[nodiscard]] std::string record_line(const JobRecordMeta& meta, const TraceSummary& summary);
/// Appends one record to a records CSV, writing the header first when the file is new or empty; a file in the
/// layout without epochs gets the record in that layout; throws ConfigError when an existing file has another
/// header.
void append_record(const std::filesystem::path& path, const JobRecordMeta& meta, const TraceSummary& summary);

/// A CSV read as text cells, with the positions needed for messages.
class RecordTable {
 public:
  /// Reads a CSV with a header line (RFC 4180 quoting); throws TraceFormatError for ragged rows.
  [[nodiscard]] static RecordTable read(const std::filesystem::path& path);
  [[nodiscard]] static RecordTable parse(const std::string& text, const std::string& source);

  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  [[nodiscard]] const std::vector<std::string>& columns() const noexcept { return columns_; }
  [[nodiscard]] std::size_t rows() const noexcept { return cells_.size(); }
  /// Index of a column; throws ConfigError naming the file and listing the columns when absent.
  [[nodiscard]] std::size_t column(const std::string& name) const;
  [[nodiscard]] bool has_column(const std::string& name) const;
  [[nodiscard]] const std::string& cell(std::size_t row, std::size_t col) const { return cells_[row][col]; }
  /// The file line of a row (1-based, counting the header).
  [[nodiscard]] std::uint32_t line_of(std::size_t row) const { return lines_[row]; }
  /// The file column (1-based, in characters) where a cell starts.
  [[nodiscard]] std::uint32_t column_of(std::size_t row, std::size_t col) const {
    return cell_columns_[row][col];
  }
  /// A column as numbers; throws TraceFormatError naming file, line, column and field for a cell that is
  /// not a finite number.
  [[nodiscard]] std::vector<double> numeric(const std::string& name) const;
  /// Whether every cell of the column parses as a finite number.
  [[nodiscard]] bool is_numeric(const std::string& name) const;
  /// The rows whose cell in `name` equals `value`.
  [[nodiscard]] RecordTable filtered(const std::string& name, const std::string& value) const;

 private:
  std::string source_;
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> cells_;
  std::vector<std::uint32_t> lines_;
  std::vector<std::vector<std::uint32_t>> cell_columns_;  // 1-based character column of each cell
};

}  // namespace fleetwatt::models::fit
