// `fleetwatt list`'s layout, apart from what it lists: registry entries (name, one-line description,
// declared parameters) as wrapped text for a terminal or as Markdown tables for docs/components.md. Kept
// apart so the tests can lay out names longer than any built-in one.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fleetwatt/jobs/param_set.hpp"

namespace fleetwatt::tools {

struct ListEntry {
  std::string name;
  std::string description;
  jobs::ParamSpecs params;
};

struct ListSection {
  std::string title;  ///< "schedulers ([scheduler] policy)"
  std::vector<ListEntry> entries;
};

/// Width of the name column; a name that does not fit puts its description on the next line.
inline constexpr std::size_t kNameColumn = 16;

/// Sections as text no wider than `width` (where words allow): "  name  description", the description
/// and each parameter ("- name (unit, default D): doc") wrapped under the description column.
[[nodiscard]] std::string format_list_text(const std::vector<ListSection>& sections, std::size_t width);
/// Sections as Markdown: a bold title, then a table with a row per entry and a row per parameter.
[[nodiscard]] std::string format_list_markdown(const std::vector<ListSection>& sections);

}  // namespace fleetwatt::tools
