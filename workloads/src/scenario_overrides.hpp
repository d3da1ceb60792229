// Setting a scenario key from outside its file, by dotted path ("fleet.nodes" = "200"): the Python
// package's load_scenario(path, **overrides) and a command line's `--set KEY=VALUE` share it. The key is
// set in the parsed TOML document before the scenario is read from it, so an overridden key is checked
// exactly as if it were written in the file (an unknown key, a wrong type or a bad value is the same error).
#pragma once

#include <string>
#include <string_view>

#include <toml++/toml.h>

namespace fleetwatt::workloads {

/// Sets `dotted_key` in `root` to `value_text`, a TOML value ("200", "2.5", "true", "\"sjf\"", "[1, 2]");
/// text that is not a TOML value is taken as a string (sjf). Tables on the path are created when missing;
/// a path through a value that is not a table is a ConfigError naming `file` and the key.
void apply_override(toml::table& root, const std::string& dotted_key, std::string_view value_text,
                    const std::string& file);

}  // namespace fleetwatt::workloads
