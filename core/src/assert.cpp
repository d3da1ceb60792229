// Where a broken invariant becomes an InvariantError (assert.hpp): the message names the condition and where
// it was checked, with the source path cut to the repository's folders.
#include "fleetwatt/core/assert.hpp"

#include <algorithm>
#include <string_view>

namespace fleetwatt {

namespace {

// "/home/x/fleetwatt/sim/src/engine.cpp" -> "sim/src/engine/engine.cpp": the part a maintainer opens.
std::string_view repository_path(std::string_view file) {
  std::size_t from =
      0;  // after the last of our folders' names in the path (the checkout's own may repeat one)
  for (const std::string_view folder : {"/core/", "/jobs/", "/models/", "/topologies/", "/sim/", "/results/",
                                        "/runs/", "/tools/", "/python/"})
    if (const auto at = file.rfind(folder); at != std::string_view::npos) from = std::max(from, at + 1);
  return file.substr(from);
}

}  // namespace

void invariant_failed(const std::string& what, const char* condition, const char* file, int line) {
  throw InvariantError(what + " (internal check `" + condition + "` failed at " +
                       std::string(repository_path(file)) + ":" + std::to_string(line) + ")");
}

}  // namespace fleetwatt
