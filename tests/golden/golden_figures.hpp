// The figures a golden scenario test compares: every /summary value of a result file, a few statistics of
// its series and job table, and two counts only the printed summary has (events, arrived jobs). One function
// computes them for both the test and tools/scripts/regen-golden.sh, so the expected files and the check
// cannot disagree on what a figure means.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace fleetwatt::golden {

/// {"summary": {name: value, ...}, "series": {name: value, ...}, "printed": {"events": n, "jobs_arrived": n}}
/// from a result file and the summary `fleetwatt run` printed for it.
[[nodiscard]] nlohmann::json figures(const std::filesystem::path& result_file, std::string_view printed);

/// The golden file of a shipped scenario (tests/golden/<stem>.json in the source tree).
[[nodiscard]] std::filesystem::path golden_file(const std::filesystem::path& source_dir,
                                                const std::filesystem::path& scenario);

/// Relative tolerance of every comparison: the simulation is deterministic, so only the last bits of sums
/// taken in another order (another compiler's or library's) may move.
inline constexpr double kRelativeTolerance = 1e-9;

/// Whether two figures agree within kRelativeTolerance (and 1e-12 absolute, for figures that are zero).
[[nodiscard]] bool agree(double expected, double actual);

/// One line per figure that differs, is missing or is new ("summary.gpu_energy_J: expected 1, got 2");
/// empty when `actual` matches `expected`. A new or missing figure counts: the golden file must be
/// regenerated when a result file gains or loses one.
[[nodiscard]] std::vector<std::string> differences(const nlohmann::json& expected,
                                                   const nlohmann::json& actual);

}  // namespace fleetwatt::golden
