// Thin helpers over the HDF5 C++ API: extendible chunked, compressed datasets that grow by appended blocks,
// and the `units` attribute every dataset carries.
#pragma once

#include <functional>

#include <H5Cpp.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fleetwatt::results {

class ChunkCompressor;

/// The filters of an appended dataset, chosen by measurement (docs/development.md, "Result files"): deflate
/// after HDF5's byte shuffle, which suits integers and smooth series, or deflate alone, which on series of
/// doubles that repeat (node power, GPU change points) is both faster and smaller.
enum class Packing { shuffle_deflate, deflate };

/// Writes a variable-length string attribute.
void write_string_attribute(H5::H5Object& obj, const std::string& name, const std::string& value);
void write_int_attribute(H5::H5Object& obj, const std::string& name, std::int64_t value);
void write_double_attribute(H5::H5Object& obj, const std::string& name, double value);

/// A 1-D dataset that grows at its end. With a compressor, appends that fill whole chunks from a chunk's
/// start are compressed by it and written directly; the rest go through HDF5's own filters.
class AppendableSeries {
 public:
  AppendableSeries(H5::Group& group, const std::string& name, const H5::PredType& type,
                   const std::string& units, hsize_t chunk, ChunkCompressor* compressor = nullptr,
                   Packing packing = Packing::shuffle_deflate);
  /// Appends n values of the dataset's type from `data`.
  void append(const void* data, hsize_t n);
  [[nodiscard]] hsize_t size() const noexcept { return size_; }
  H5::DataSet& dataset() noexcept { return dataset_; }

 private:
  H5::DataSet dataset_;
  H5::PredType type_;
  hsize_t size_ = 0;
  hsize_t chunk_;
  ChunkCompressor* compressor_;
  Packing packing_;
};

/// A 1-D dataset of variable-length UTF-8 strings that grows at its end (chunked, not compressed: a filter
/// would see only the strings' heap references).
class AppendableStrings {
 public:
  AppendableStrings(H5::Group& group, const std::string& name, const std::string& units, hsize_t chunk);
  void append(const std::vector<std::string>& values);
  [[nodiscard]] hsize_t size() const noexcept { return size_; }

 private:
  H5::DataSet dataset_;
  H5::StrType type_;
  hsize_t size_ = 0;
};

/// A rows x columns dataset of doubles that grows by columns (rows fixed: one per node). With a compressor,
/// a block of exactly one chunk's columns, from a chunk's start, is compressed by it and written directly.
class AppendableMatrix {
 public:
  AppendableMatrix(H5::Group& group, const std::string& name, hsize_t rows, const std::string& units,
                   hsize_t chunk_rows, hsize_t chunk_cols, ChunkCompressor* compressor = nullptr,
                   Packing packing = Packing::shuffle_deflate);
  /// Appends `cols` columns from a rows x cols row-major block.
  void append_columns(const double* block, hsize_t cols);
  [[nodiscard]] hsize_t columns() const noexcept { return cols_; }
  H5::DataSet& dataset() noexcept { return dataset_; }

 private:
  H5::DataSet dataset_;
  hsize_t rows_;
  hsize_t cols_ = 0;
  hsize_t chunk_rows_, chunk_cols_;
  ChunkCompressor* compressor_;
  Packing packing_;
};

/// A complete 1-D dataset written at once (job table columns, summary values).
void write_vector(H5::Group& group, const std::string& name, const std::vector<double>& v,
                  const std::string& units);
void write_vector(H5::Group& group, const std::string& name, const std::vector<std::int64_t>& v,
                  const std::string& units);
void write_strings(H5::Group& group, const std::string& name, const std::vector<std::string>& v,
                   const std::string& units);
void write_scalar(H5::Group& group, const std::string& name, double v, const std::string& units);
/// An integer scalar: every count is stored as an integer.
void write_scalar(H5::Group& group, const std::string& name, std::int64_t v, const std::string& units);

}  // namespace fleetwatt::results

#include "fleetwatt/results/metrics/grid_metrics.hpp"
#include "fleetwatt/results/metrics/power_quality.hpp"
#include "fleetwatt/sim/fleet/job.hpp"

namespace fleetwatt::results {

/// The job table (one dataset per column) of a run into `group` (job_table.hpp writes it).
void write_job_datasets(H5::Group& group, const std::vector<sim::Job>& jobs, std::uint32_t gpus_per_node);
/// The job table, with each GPU's node from `node_of`; with `gpu_column`, each job's GPU preset too.
void write_job_datasets(H5::Group& group, const std::vector<sim::Job>& jobs,
                        const std::function<std::int64_t(sim::GpuIndex)>& node_of, bool gpu_column = false);

/// The grid metrics: scalars into `summary`, the load-duration curve and daily energies into `grid`.
/// `meter`: the /facility series they are computed from (facility_power_W, or grid_import_W with
/// batteries), stored as the attribute `meter` of both groups.
void write_grid_metrics(H5::Group& summary, H5::Group& grid, const GridMetrics& m,
                        std::string_view meter = "facility_power_W");
/// The power-quality figures into `group` (/power_quality), computed from the /facility series `meter`.
void write_power_quality(H5::Group& group, const PowerQuality& q,
                         std::string_view meter = "facility_power_W");

}  // namespace fleetwatt::results
