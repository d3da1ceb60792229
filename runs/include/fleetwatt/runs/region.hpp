// A region: several sites, each a whole scenario (its own fleet, facility, grid signals and workload), in one
// file of [[site]] tables. Each site runs as an independent engine; the region's figures (the sum of the
// sites' facility power on a common time base, the coincident peak) are formed from their results
// (results/hdf5/region_index.hpp). A site is written inline ([[site]] with [site.fleet], [site.workload],
// ...) or taken from a scenario file (`scenario = "day-fleet.toml"`, with `set = [...]` overrides).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/runs/scenario.hpp"

namespace fleetwatt::runs {

struct RegionSite {
  std::string name;       ///< unique in the region; its result file's stem
  Scenario scenario;      ///< the site's scenario, overrides and seed applied
  std::string source;     ///< the scenario file it came from, or "" when written inline
  std::string overrides;  ///< its `set` assignments, "; "-separated ("" for none)
  SourceLocation where;   ///< its [[site]] table
};

struct Region {
  std::filesystem::path file;
  std::string text;  ///< the region file's text (with command-line overrides as a comment)
  std::string name;
  std::uint64_t seed = 1;   ///< inline sites without a seed of their own run with seed + their index
  double interval_s = 0.0;  ///< [region] interval_s: the common time base (0: the largest site interval)
  SourceLocation interval_where;
  std::vector<RegionSite> sites;
};

/// Whether the TOML text is a region (holds a [[site]] array) rather than a scenario.
[[nodiscard]] bool is_region_text(std::string_view text);
[[nodiscard]] bool is_region_file(const std::filesystem::path& file);

/// Reads and checks a region file: every site's scenario is loaded (errors name the region file or the
/// site's scenario file, line:column and key). `overrides` are `--set` assignments on the region's own
/// keys (`site[1].fleet.nodes=20`); `seed` (--seed) replaces the seed of every site that gives none.
[[nodiscard]] Region load_region(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                                 std::optional<std::uint64_t> seed);
/// The same from text; paths in it resolve against `file`'s folder.
[[nodiscard]] Region parse_region(std::string_view text, const std::filesystem::path& file,
                                  const std::vector<std::string>& overrides,
                                  std::optional<std::uint64_t> seed);

}  // namespace fleetwatt::runs
