// Command-line overrides of a scenario: `--set key=value` assignments written into the parsed scenario TOML
// before it is checked, so that an overridden key meets the same checks (unknown keys, types, ranges) as one
// written in the file. The command line (run, compare, sweep) and the Python binding share this one
// mechanism. toml++ is slow to compile: include this header only where a scenario is parsed.
#pragma once

#include <string>
#include <string_view>

#include <toml++/toml.h>

namespace fleetwatt::runs {

/// Applies one assignment `key=value` to `root` (a parsed scenario).
///
/// The key is a dotted path (`fleet.nodes`, `scheduler.powercap.cap_w`); a segment may index an array,
/// from 0 (`fleet.group[1].nodes`, `workload.jobs[0].n_gpus`). Missing tables on the way are created; an
/// index past the end of an array, or a path through a value that is not a table, is an error. The value
/// is a TOML value (`2000`, `1.8e6`, `true`, `"easy"`, `[1, 2]`, `{ nodes = 2 }`); a bare word that is not
/// one (`easy`) is taken as a string, so shells need no extra quotes. The written key and value carry the
/// source name `origin + " " + assignment`: an error found later about them (core::location_of) names
/// that, e.g. "--set fleet.nodes=0: fleet.nodes: must be positive, got 0", instead of a line of the file.
/// Malformed assignments throw core::ConfigError naming `origin` and the key.
void apply_override(toml::table& root, std::string_view assignment, std::string_view origin = "--set");

/// Refuses (ConfigError naming `origin` and the key) a key that is not a dotted path of bare keys with
/// optional [N] indices, as apply_override reads it: for callers that join a key and a value themselves
/// (Python's (key, value) pairs), where a key holding '=' or a newline would smuggle in another assignment.
void check_override_key(std::string_view key, std::string_view origin);

/// The key of an assignment (the text before the first '='), blanks trimmed; the whole text without '='.
[[nodiscard]] std::string override_key(std::string_view assignment);

}  // namespace fleetwatt::runs
