// Dotted-key overrides of a parsed scenario document (see scenario_overrides.hpp).
#include "scenario_overrides.hpp"

#include <fmt/format.h>

#include <vector>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::workloads {

namespace {

// The value as a TOML node: parsed as the right-hand side of an assignment, so every TOML literal works;
// a bare word (sjf, first_fit) is a string, as a shell user would write it.
toml::node_view<const toml::node> value_of(const toml::table& doc) {
  return doc["v"];
}

}  // namespace

void apply_override(toml::table& root, const std::string& dotted_key, std::string_view value_text,
                    const std::string& file) {
  const core::SourceLocation where{file, 0, 0};
  std::vector<std::string> parts;
  std::size_t from = 0;
  while (true) {
    const std::size_t dot = dotted_key.find('.', from);
    parts.push_back(dotted_key.substr(from, dot == std::string::npos ? std::string::npos : dot - from));
    if (dot == std::string::npos) break;
    from = dot + 1;
  }
  for (const auto& p : parts)
    if (p.empty())
      throw core::ConfigError(where, dotted_key, "an override key needs a name between every two dots");
  toml::table doc;
  try {
    doc = toml::parse(fmt::format("v = {}", value_text), file);
  } catch (const toml::parse_error&) {
    doc = toml::table{{"v", std::string(value_text)}};
  }
  toml::table* t = &root;
  std::string path;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    path += (path.empty() ? "" : ".") + parts[i];
    toml::node* n = t->get(parts[i]);
    if (!n) {
      t = t->insert_or_assign(parts[i], toml::table{}).first->second.as_table();
      continue;
    }
    if (!n->is_table())
      throw core::ConfigError(where, dotted_key,
                              fmt::format("{} is not a table: no key can be set in it", path));
    t = n->as_table();
  }
  // Replacing the value keeps the key (and where the file wrote it) when the file has it.
  const toml::node& v = *value_of(doc).node();
  v.visit([&](const auto& value) { t->insert_or_assign(parts.back(), value); });
}

}  // namespace fleetwatt::workloads
