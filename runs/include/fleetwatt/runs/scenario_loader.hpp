// Reads scenario TOML into a Scenario. Unknown keys, wrong types and impossible values are ConfigErrors
// naming the file, line, column and key.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/runs/scenario.hpp"

namespace fleetwatt::runs {

/// Loads and validates a scenario file (and the jobs CSV it names).
[[nodiscard]] Scenario load_scenario(const std::filesystem::path& file);

/// Parses scenario text; `file` names it in messages and anchors relative paths.
[[nodiscard]] Scenario parse_scenario(std::string_view text, const std::filesystem::path& file);

/// The same with `--set key=value` overrides (runs/scenario_override.hpp) applied, in order, to the
/// parsed TOML before it is checked. An error about an overridden key names the assignment, not the file.
/// The scenario's text (kept in result files) is the file's, followed by a comment listing the overrides.
/// `origin` names where the overrides come from in messages: "--set" on the command line,
/// "load_scenario" in Python.
[[nodiscard]] Scenario load_scenario(const std::filesystem::path& file,
                                     const std::vector<std::string>& overrides,
                                     std::string_view origin = "--set");
[[nodiscard]] Scenario parse_scenario(std::string_view text, const std::filesystem::path& file,
                                      const std::vector<std::string>& overrides,
                                      std::string_view origin = "--set");

}  // namespace fleetwatt::runs
