// Rows of a Markdown table ("| a | b |"), as the published measurement files print them: the one reader of
// such rows for the GEMM and step-time data sets.
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fleetwatt::models {

/// One cell of a row, trimmed, with its 1-based column in the line.
struct MarkdownCell {
  std::string text;
  std::uint32_t column = 0;
};

/// The cells between the row's pipes, in order (text before the first pipe and after the last is not a cell).
[[nodiscard]] inline std::vector<MarkdownCell> markdown_cells(std::string_view line) {
  std::vector<MarkdownCell> cells;
  std::size_t start = line.find('|');
  while (start != std::string_view::npos) {
    const std::size_t end = line.find('|', start + 1);
    if (end == std::string_view::npos) break;
    std::size_t a = start + 1, b = end;
    while (a < b && std::isspace(static_cast<unsigned char>(line[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(line[b - 1]))) --b;
    cells.push_back({std::string(line.substr(a, b - a)), static_cast<std::uint32_t>(a + 1)});
    start = end;
  }
  return cells;
}

}  // namespace fleetwatt::models
