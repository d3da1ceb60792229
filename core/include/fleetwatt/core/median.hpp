// The median of a sample, shared by the fits that report a typical error and the benchmarks that judge
// a goal on the middle of repeated runs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace fleetwatt::core {

/// The middle value (the mean of the two middle values for an even count); 0 for an empty sample.
[[nodiscard]] inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 != 0 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

}  // namespace fleetwatt::core
