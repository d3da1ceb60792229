// Iterative nesting-depth scans of GraphML (XML) and DOT text, run before Boost's recursive parsers.
#include "markup_depth.hpp"

#include <cstdint>

#include <fmt/format.h>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::topologies::detail {

namespace {

// A cursor that knows its line and column (1-based), for the error's location.
struct Cursor {
  std::string_view text;
  std::size_t i = 0;
  std::uint32_t line = 1, column = 1;

  [[nodiscard]] bool done() const noexcept { return i >= text.size(); }
  [[nodiscard]] bool at(std::string_view s) const noexcept { return text.substr(i, s.size()) == s; }
  void advance(std::size_t n = 1) noexcept {
    for (; n > 0 && i < text.size(); --n, ++i) {
      if (text[i] == '\n')
        ++line, column = 1;
      else
        ++column;
    }
  }
  // Moves past the next `end` (or to the end of the text).
  void skip_past(std::string_view end) noexcept {
    while (!done() && !at(end)) advance();
    advance(end.size());
  }
};

[[noreturn]] void too_deep(const Cursor& c, const std::string& file, const char* key) {
  throw core::ConfigError(core::SourceLocation{file, c.line, c.column}, key,
                          fmt::format("nested deeper than {} levels", kMaxMarkupDepth));
}

}  // namespace

void check_xml_depth(std::string_view text, const std::string& file) {
  Cursor c{text};
  int depth = 0;
  while (!c.done()) {
    if (c.text[c.i] != '<') {
      c.advance();
      continue;
    }
    if (c.at("<!--")) {
      c.skip_past("-->");
    } else if (c.at("<![CDATA[")) {
      c.skip_past("]]>");
    } else if (c.at("<?")) {
      c.skip_past("?>");
    } else if (c.at("<!")) {
      c.skip_past(">");
    } else if (c.at("</")) {
      c.skip_past(">");
      if (depth > 0) --depth;
    } else {
      const Cursor open = c;
      // A start tag: to its '>', past quoted attribute values; "/>" closes it at once.
      char quote = 0, last = 0;
      c.advance();
      while (!c.done()) {
        const char ch = c.text[c.i];
        if (quote) {
          if (ch == quote) quote = 0;
        } else if (ch == '"' || ch == '\'') {
          quote = ch;
        } else if (ch == '>') {
          break;
        }
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') last = ch;
        c.advance();
      }
      c.advance();
      if (last != '/' && ++depth > kMaxMarkupDepth) too_deep(open, file, "graphml");
    }
  }
}

void check_dot_depth(std::string_view text, const std::string& file) {
  Cursor c{text};
  int depth = 0;
  while (!c.done()) {
    const char ch = c.text[c.i];
    if (ch == '"') {  // a quoted ID: to its closing quote, past escaped characters
      c.advance();
      while (!c.done() && c.text[c.i] != '"') c.advance(c.text[c.i] == '\\' ? 2 : 1);
      c.advance();
    } else if (c.at("//") || ((c.column == 1) && ch == '#')) {
      c.skip_past("\n");
    } else if (c.at("/*")) {
      c.skip_past("*/");
    } else if (ch == '{' || ch == '[') {
      if (++depth > kMaxMarkupDepth) too_deep(c, file, "dot");
      c.advance();
    } else {
      if ((ch == '}' || ch == ']') && depth > 0) --depth;
      c.advance();
    }
  }
}

}  // namespace fleetwatt::topologies::detail
