// The scenario loader's core, for the region loader (region.cpp): one parsed TOML table read as a scenario,
// with its keys named under a prefix ("site[1].fleet.nodes") and a few keys of the caller's allowed beside
// the scenario's.
#pragma once

#include <toml++/toml.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fleetwatt/runs/scenario.hpp"

namespace fleetwatt::runs {

/// `root` read as a scenario whose text is `text` (kept in results) and whose paths resolve against `file`'s
/// folder. Keys in messages are `key_prefix.key`; `extra_keys` are allowed at the top beside the scenario's
/// (read by the caller).
[[nodiscard]] Scenario parse_scenario_table(const toml::table& root, std::string text,
                                            const std::filesystem::path& file, const std::string& key_prefix,
                                            const std::vector<std::string>& extra_keys);

}  // namespace fleetwatt::runs
