// The index file of independent runs (a sweep's members, a region's sites): one compound table of rows and
// external links to each run's own result file, written under a temporary name and renamed when complete.
#pragma once

#include <H5Cpp.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "fleetwatt/results/hdf5/sweep_index.hpp"

namespace fleetwatt::results {

struct MemberIndexLayout {
  std::string table_group;  ///< the table's group, also the root attribute holding the command's flags
  std::string table;        ///< the table's dataset in it
  std::string links;        ///< the group of external links
  std::string what;         ///< "sweep index", "region file": for messages
};

/// `extra` writes further groups into the file before it is closed and renamed.
void write_member_index(const std::filesystem::path& out, const std::vector<SweepMemberRow>& rows,
                        const SweepProvenance& p, const MemberIndexLayout& layout,
                        const std::function<void(H5::H5File&)>& extra);

}  // namespace fleetwatt::results
