// Whether two result files hold the same datasets with the same values, bit for bit (NaN equals NaN of the
// same bits): the check that a sweep member is the run it stands for. Attributes are not compared: they
// hold the wall-clock creation time.
#pragma once

#include <cstring>
#include <filesystem>
#include <string>

#include "fleetwatt/results/hdf5/result_reader.hpp"

namespace fleetwatt::test {

/// "" when equal, else the first difference. Datasets whose names start with `skip` (when given) are left
/// out, in either file.
inline std::string result_files_difference(const std::filesystem::path& a, const std::filesystem::path& b,
                                           const std::string& skip = "") {
  const results::ResultReader ra(a), rb(b);
  auto names = ra.datasets(), other = rb.datasets();
  if (!skip.empty()) {
    const auto skipped = [&skip](const std::string& n) { return n.rfind(skip, 0) == 0; };
    std::erase_if(names, skipped);
    std::erase_if(other, skipped);
  }
  if (names != other) return "the files hold different datasets";
  for (const auto& n : names) {
    // The run's own wall time is not a result.
    if (n == "/summary/wall_s") continue;
    if (ra.kind(n) != rb.kind(n)) return n + ": different kinds";
    if (ra.kind(n) == results::ResultReader::Kind::text) {
      if (ra.strings(n) != rb.strings(n)) return n + ": different text";
      continue;
    }
    if (ra.kind(n) == results::ResultReader::Kind::integer) {
      if (ra.integers(n) != rb.integers(n)) return n + ": different integers";
      continue;
    }
    const auto x = ra.doubles(n), y = rb.doubles(n);
    // memcmp, not ==: bit for bit (NaN equals NaN, -0 differs from 0). An empty dataset has no data
    // pointer, which memcmp may not be given even for zero bytes (UBSan: nonnull attribute).
    if (x.size() != y.size() ||
        (!x.empty() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) != 0))
      return n + ": different numbers";
  }
  return "";
}

}  // namespace fleetwatt::test
