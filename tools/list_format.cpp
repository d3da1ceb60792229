// Text and Markdown layout of `fleetwatt list`: word wrapping under a name column, Markdown tables.
#include "list_format.hpp"

#include <fmt/format.h>

#include <sstream>

namespace fleetwatt::tools {
namespace {

// Appends `text` word by word starting at column `col` of the current line, breaking before a word that
// would pass `width` and indenting continuation lines by `indent`. A word longer than a line stays whole.
void wrap(std::string& out, std::size_t col, const std::string& text, std::size_t indent, std::size_t width) {
  std::istringstream words(text);
  std::string word;
  bool first = true;
  while (words >> word) {
    const std::size_t need = word.size() + (first ? 0 : 1);
    if (!first && col + need > width) {
      out += '\n' + std::string(indent, ' ');
      col = indent;
    } else if (!first) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    first = false;
  }
  out += '\n';
}

std::string param_text(const jobs::ParamSpec& p) {
  std::string attrs = p.unit;
  const std::string shown = p.default_shown();
  if (shown == "required")
    attrs += attrs.empty() ? "required" : ", required";
  else
    attrs += (attrs.empty() ? "default " : ", default ") + shown;
  return fmt::format("- {} ({}): {}", p.name, attrs, p.doc);
}

// A Markdown table cell: pipes escaped, so text cannot open a column.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string format_list_text(const std::vector<ListSection>& sections, std::size_t width) {
  constexpr std::size_t kIndent = 2;
  constexpr std::size_t kText = kIndent + kNameColumn + 2;  // where descriptions and parameters start
  std::string out;
  for (const auto& s : sections) {
    out += s.title + ":\n";
    for (const auto& e : s.entries) {
      out += std::string(kIndent, ' ') + e.name;
      std::size_t col = kIndent + e.name.size();
      if (e.name.size() > kNameColumn) {
        // Too long for its column: the description starts on the next line, never run into the name.
        out += '\n';
        col = 0;
      }
      out += std::string(kText - col, ' ');
      wrap(out, kText, e.description, kText, width);
      for (const auto& p : e.params) {
        out += std::string(kText, ' ');
        wrap(out, kText, param_text(p), kText + 2, width);
      }
    }
  }
  return out;
}

std::string format_list_markdown(const std::vector<ListSection>& sections) {
  std::string out;
  for (const auto& s : sections) {
    out += fmt::format("**{}**\n\n", s.title);
    out += "| name | parameter | default | unit | description |\n|---|---|---|---|---|\n";
    for (const auto& e : s.entries) {
      out += fmt::format("| `{}` | | | | {} |\n", cell(e.name), cell(e.description));
      for (const auto& p : e.params)
        out += fmt::format("| | `{}` | {} | {} | {} |\n", cell(p.name), cell(p.default_shown()), cell(p.unit),
                           cell(p.doc));
    }
    out += '\n';
  }
  return out;
}

}  // namespace fleetwatt::tools
