// How a request made from the command line or from Python names one of its options in an error: the
// command's flag (`--micro-batch`) or Python's keyword (`micro_batch`). predict's and serve's requests
// both name theirs this way.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace fleetwatt::runs {

/// `flag` as the command line spells it without its dashes ("micro-batch"): "--micro-batch", or the
/// keyword "micro_batch" when `keyword_names`.
[[nodiscard]] inline std::string option_name(std::string_view flag, bool keyword_names) {
  if (!keyword_names) return "--" + std::string(flag);
  std::string name(flag);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

}  // namespace fleetwatt::runs
