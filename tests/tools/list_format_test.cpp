// `fleetwatt list`'s layout: names longer than their column never run into their description, and text
// and parameters wrap within the width.
#include <catch2/catch.hpp>

#include <sstream>

#include "list_format.hpp"

using namespace fleetwatt;

namespace {

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

const std::vector<tools::ListSection> kSections = {
    {"schedulers",
     {{"fifo", "first in, first out", {}},
      {"a_policy_named_at_length",
       "a description long enough to wrap onto a second line at forty columns",
       {{"threshold_w", jobs::ParamType::number, 250.0, "", "W", "the level above which jobs wait", {}}}}}}};

}  // namespace

TEST_CASE("a name longer than its column puts its description on the next line", "[list]") {
  const auto lines = split_lines(tools::format_list_text(kSections, 40));
  REQUIRE(lines.size() >= 5);
  CHECK(lines[0] == "schedulers:");
  CHECK(lines[1] == "  fifo" + std::string(14, ' ') + "first in, first out");  // text at column 20
  CHECK(lines[2] == "  a_policy_named_at_length");  // alone: its text starts under the description column
  CHECK(lines[3].rfind(std::string(20, ' ') + "a description", 0) == 0);
  for (const auto& l : lines) {
    INFO(l);
    CHECK(l.size() <= 40);
  }
}

TEST_CASE("parameters are listed under their entry with unit and default, continuation lines indented",
          "[list]") {
  const std::string text = tools::format_list_text(kSections, 60);
  CHECK(text.find("                    - threshold_w (W, default 250): the\n"
                  "                      level above which jobs wait\n") != std::string::npos);
}

TEST_CASE("the Markdown tables have a row per entry and per parameter, pipes escaped", "[list]") {
  std::vector<tools::ListSection> s = kSections;
  s[0].entries[0].description = "a | b";
  const std::string md = tools::format_list_markdown(s);
  CHECK(
      md.find(
          "**schedulers**\n\n| name | parameter | default | unit | description |\n|---|---|---|---|---|\n") ==
      0);
  CHECK(md.find("| `fifo` | | | | a \\| b |\n") != std::string::npos);
  CHECK(md.find("| | `threshold_w` | 250 | W | the level above which jobs wait |\n") != std::string::npos);
}
