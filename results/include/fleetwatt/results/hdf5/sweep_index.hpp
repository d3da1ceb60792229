// The index file of a `fleetwatt sweep`: one table, /sweep/members, of every member (its overrides, seed,
// band, status, rank, wall time and summary figures), and each completed member's own result file linked in
// under /members/NAME (HDF5 external links). Members are written as ordinary run files by whichever rank ran
// them; the index is written once, by one process, at the end: no parallel HDF5 is needed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace fleetwatt::results {

inline constexpr double kNoFigure = std::numeric_limits<double>::quiet_NaN();

/// The summary figures of a member copied into the table (NaN, or -1 for counts, when it has none).
struct MemberFigures {
  std::int64_t jobs_finished = -1;
  double gpu_utilisation = kNoFigure;
  double gpu_energy_J = kNoFigure, it_energy_J = kNoFigure, facility_energy_J = kNoFigure;
  double peak_facility_W = kNoFigure, peak_facility_interval_mean_W = kNoFigure, mean_facility_W = kNoFigure,
         peak_15min_W = kNoFigure;
  double carbon_kg = kNoFigure, cost = kNoFigure;
  double wait_mean_s = kNoFigure, jct_mean_s = kNoFigure;  ///< the member's /summary job times
};

/// One row of /sweep/members.
struct SweepMemberRow {
  std::int64_t member = 0;    ///< index in the grid's Cartesian product (last axis fastest)
  std::string name;           ///< "m000007": the group under /members and the member's file stem
  std::string overrides;      ///< the member's --set assignments, "; "-separated (the grid's, not --set's)
  std::int64_t seed = 0;      ///< the seed it ran with
  std::string band;           ///< low, mid, high, or "" (the scenario's)
  std::string status;         ///< done, failed, or not run (an interrupted or stopped sweep)
  std::string error;          ///< why it failed
  std::int64_t rank = -1;     ///< MPI rank that ran it (0 serially)
  double wall_s = kNoFigure;  ///< its wall time
  std::string file;           ///< its result file, relative to the index file's folder ("" if none)
  MemberFigures figures;
};

/// What the index records about the sweep as a whole (root attributes).
struct SweepProvenance {
  std::string scenario_text, scenario_file;
  std::string command;  ///< the flags that define the sweep (--set, --grid, --band)
  std::int64_t ranks = 1;
  double wall_s = 0.0;
  std::string version, git_commit;
};

/// Reads a member's figures from its result file (/summary).
[[nodiscard]] MemberFigures read_member_figures(const std::filesystem::path& result_file);

/// Writes the index at `out` (under a temporary name, renamed when complete).
void write_sweep_index(const std::filesystem::path& out, const std::vector<SweepMemberRow>& rows,
                       const SweepProvenance& p);

}  // namespace fleetwatt::results
