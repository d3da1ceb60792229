// `fleetwatt run REGION.toml`: a region file ([[site]] tables, runs/region.hpp) runs each site as an
// independent engine, one after another in this process, into OUTPUT.sites/NAME.h5, then writes OUTPUT: the
// sites' table, links to their files and the region's summed series and coincident peak.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fleetwatt::tools {

struct RegionRunOptions {
  std::string region;  ///< the region file
  std::string output;  ///< the region result file ("": the region file's stem + .h5 in the current folder)
  std::optional<std::uint64_t> seed;
  std::string band;
  std::vector<std::string> overrides;
  bool quiet = false;
  std::uint64_t max_output = 0;  ///< per site
  std::uint64_t max_memory = 0;  ///< per site (0: the default, 2 GiB or the available memory)
};

int run_region(const RegionRunOptions& o);

}  // namespace fleetwatt::tools
