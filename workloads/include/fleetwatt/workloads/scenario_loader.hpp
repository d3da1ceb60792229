// Reads scenario TOML into a Scenario. Unknown keys, wrong types and impossible values are ConfigErrors
// naming the file, line, column and key.
#pragma once

#include <filesystem>
#include <string_view>

#include "fleetwatt/workloads/scenario.hpp"

namespace fleetwatt::workloads {

/// Loads and validates a scenario file (and the jobs CSV it names).
[[nodiscard]] Scenario load_scenario(const std::filesystem::path& file);

/// Parses scenario text; `file` names it in messages and anchors relative paths.
[[nodiscard]] Scenario parse_scenario(std::string_view text, const std::filesystem::path& file);

}  // namespace fleetwatt::workloads
