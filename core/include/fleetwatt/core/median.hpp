// The median of a sample, shared by the fits that report a typical error and the benchmarks that judge
// a goal on the middle of repeated runs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fleetwatt::core {

/// The middle value (the mean of the two middle values for an even count); 0 for an empty sample.
[[nodiscard]] inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 != 0 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

/// The median of a table's values whose key `keep` accepts (every value by default); nothing when none is
/// kept (the fits pool per-GPU figures this way).
template <class Keep = bool (*)(const std::string&)>
[[nodiscard]] std::optional<double> median_of_values(
    const std::map<std::string, double>& values, Keep keep = [](const std::string&) { return true; }) {
  std::vector<double> v;
  for (const auto& [key, x] : values)
    if (keep(key)) v.push_back(x);
  if (v.empty()) return std::nullopt;
  return median(std::move(v));
}

}  // namespace fleetwatt::core
