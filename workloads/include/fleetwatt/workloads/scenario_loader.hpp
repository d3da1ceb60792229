// Reads scenario TOML into a Scenario. Unknown keys, wrong types and impossible values are ConfigErrors
// naming the file, line, column and key.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "fleetwatt/workloads/scenario.hpp"

namespace fleetwatt::workloads {

/// Loads and validates a scenario file (and the jobs CSV it names).
[[nodiscard]] Scenario load_scenario(const std::filesystem::path& file);

/// Parses scenario text; `file` names it in messages and anchors relative paths.
[[nodiscard]] Scenario parse_scenario(std::string_view text, const std::filesystem::path& file);

/// One key set from outside the file: a dotted key ("fleet.nodes") and a TOML value as text ("200",
/// "\"sjf\"", "[1, 2]"; a bare word is a string).
struct ScenarioOverride {
  std::string key;
  std::string value;
};

/// The same with keys overridden, checked as if the file held them (an unknown key, a wrong type or a bad
/// value is the file's ConfigError, at the key's place in the file when it is there, else at the file). The
/// scenario's text (kept in result files) is then the overridden document, so it reproduces the run.
[[nodiscard]] Scenario parse_scenario(std::string_view text, const std::filesystem::path& file,
                                      std::span<const ScenarioOverride> overrides);
[[nodiscard]] Scenario load_scenario(const std::filesystem::path& file,
                                     std::span<const ScenarioOverride> overrides);

}  // namespace fleetwatt::workloads
