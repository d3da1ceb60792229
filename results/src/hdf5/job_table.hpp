// The job table (/jobs, and /policies/NAME/jobs in a comparison file): one row per job, one extendible
// dataset per column, appended a block of rows at a time, so a run that streams its finished jobs holds a
// block, not the table. A block is one HDF5 chunk of each column, so the numeric columns' chunks go whole
// to a chunk compressor (libdeflate, off the engine's thread when the compressor has one) and are written
// directly. Which columns there are follows the first row (the smoothing and [failures] columns only when
// the run has them), as when the table was written whole.
#pragma once

#include <H5Cpp.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fleetwatt/sim/fleet/job_record.hpp"

namespace fleetwatt::results {

class ChunkCompressor;

class JobTable {
 public:
  /// A server's index for each GPU index (the `nodes` column).
  using NodeOf = std::function<std::int64_t(sim::GpuIndex)>;
  /// The table in `group`; with `gpu_column`, each job's GPU preset too (fleets of several node groups).
  /// `block_rows` rows, one chunk of each column, are buffered before they are appended. `compressor`: the
  /// file's, which must outlive the table's datasets or drop their chunks first; null: one of the table's
  /// own, on the caller's thread.
  JobTable(H5::Group group, NodeOf node_of, bool gpu_column, std::size_t block_rows,
           ChunkCompressor* compressor = nullptr);
  ~JobTable();
  JobTable(const JobTable&) = delete;
  JobTable& operator=(const JobTable&) = delete;

  /// The next row. The first row creates the datasets (its smoothing and failure figures say whether the
  /// table has their columns).
  void append(const sim::JobRecord& job);
  /// Writes the rows still buffered (and the datasets, empty, when there was no row), and waits until the
  /// compressor has written every chunk. Call once, last.
  void finish();
  [[nodiscard]] std::uint64_t rows() const noexcept { return rows_; }

 private:
  struct Column;
  void create(const sim::JobRecord* first);
  void flush();

  H5::Group group_;
  NodeOf node_of_;
  bool gpu_column_;
  std::size_t block_rows_;
  std::unique_ptr<ChunkCompressor> own_compressor_;
  ChunkCompressor* compressor_;
  std::vector<std::unique_ptr<Column>> columns_;
  bool created_ = false;
  std::size_t buffered_ = 0;
  std::uint64_t rows_ = 0;
};

}  // namespace fleetwatt::results
