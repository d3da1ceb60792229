// `fleetwatt export` of the files that index other runs: a sweep's index (/sweep/members, one row per member
// with its grid values and summary figures) and a region's file (its sites' table, and the coincident total
// on the common UTC base beside each site's own power and local time). A researcher or a planner gets every
// figure from the one file, without opening the members'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

#include "export_values.hpp"
#include "fleetwatt/results/hdf5/result_reader.hpp"

namespace fleetwatt::tools {

/// The table of a sweep index or a region file ("/sweep/members" or "/region/sites"), or "" for neither.
[[nodiscard]] std::string member_table_of(const results::ResultReader& h5);

/// Whether the file is a region's (`fleetwatt run REGION.toml`).
[[nodiscard]] bool is_region(const results::ResultReader& h5);

/// Writes the member (or site) table as CSV: every column of the table, with, after `overrides`, one
/// column per key the members set (its value for each member, empty where a member does not set it).
/// Returns the rows written.
std::size_t export_member_table(std::ostream& out, const results::ResultReader& h5, const std::string& table);

/// How a region's series are written.
struct RegionExport {
  std::string file;           ///< the region file, as given (for messages)
  std::int64_t width_ns = 0;  ///< row interval
  PowerUnit unit;
  int decimals = 4;
  std::size_t row_limit = std::numeric_limits<std::size_t>::max();
};

/// Writes the region's series as CSV, resampled exactly as a run's: UTC time stamp, seconds since the
/// common start, the coincident total (facility and IT power), each site's facility power, then each
/// site's local time (on its own [output] start's offset, read from its file). Returns the rows written.
std::size_t export_region(std::ostream& out, const results::ResultReader& h5, const RegionExport& how);

}  // namespace fleetwatt::tools
