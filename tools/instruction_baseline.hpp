// The instruction-count gate's pure parts, apart from running valgrind (bench_instructions.hpp): the
// baseline file (bench/instructions.toml: one [[case]] table per measured run) read with located errors and
// rewritten in place with new counts, the verdict on a measured count against its baseline, and the count
// read back from callgrind's log or output file. Kept apart so the tests can check them with hand-computed
// numbers, without valgrind.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/core/input_error.hpp"

namespace fleetwatt::tools {

/// One measured run of the baseline file: `fleetwatt run -q SCENARIO ARGS... -o TEMPORARY` under callgrind.
struct InstructionCase {
  std::string name;
  std::string scenario;                ///< as written: relative to the baseline's root
  std::filesystem::path scenario_path;  ///< root / scenario
  std::vector<std::string> args;       ///< extra command-line arguments (`--set KEY=VALUE`, ...)
  std::optional<std::uint64_t> instructions;  ///< none: a case added and not measured yet
  std::string compiler;                ///< what built the fleetwatt that measured it ("gcc 12.2.0, Release")
  std::string machine;                 ///< where (CPU, C library, valgrind)
  core::SourceLocation where;          ///< the case's [[case]] header
};

struct InstructionBaseline {
  std::filesystem::path file;
  std::filesystem::path root;  ///< the folder the cases' scenario paths are relative to
  std::vector<InstructionCase> cases;
};

/// Reads a baseline file. Anything wrong (unreadable, bad TOML, an unknown key, a case without a name or
/// scenario, two cases of one name, a scenario that is not a file, a count that is not a positive integer)
/// is a ConfigError at its file:line:column.
[[nodiscard]] InstructionBaseline read_instruction_baseline(const std::filesystem::path& file);

/// New figures for one case of the baseline file.
struct InstructionUpdate {
  std::string name;
  std::uint64_t instructions = 0;
  std::string compiler;
  std::string machine;
};

/// `text` (the baseline file named `file`) with each updated case's `instructions`, `compiler` and `machine`
/// values replaced, or added after its last value when absent; every other byte (comments, order, other
/// cases, args) is kept. Cases not named in `updates` are left as they are. Throws ConfigError as
/// read_instruction_baseline does for text it cannot parse.
[[nodiscard]] std::string rewrite_instruction_counts(const std::string& text, const std::string& file,
                                                     const std::vector<InstructionUpdate>& updates);

/// What a measured count says against its baseline.
enum class InstructionVerdict {
  within,  ///< within +/- the tolerance: passes
  slower,  ///< more than the tolerance above the baseline: fails the gate
  faster,  ///< more than the tolerance below: passes, and the baseline should be lowered to keep the gain
};

struct InstructionJudgement {
  InstructionVerdict verdict = InstructionVerdict::within;
  double change_pct = 0.0;  ///< (measured - baseline) / baseline, percent
};

/// Judges `measured` against `baseline` (> 0) with a tolerance of `tolerance_pct` percent either way; a
/// change of exactly the tolerance is within it.
[[nodiscard]] InstructionJudgement judge_instructions(std::uint64_t baseline, std::uint64_t measured,
                                                      double tolerance_pct);

/// The count of callgrind's "==PID== Collected : N" log line; nothing when the log has none.
[[nodiscard]] std::optional<std::uint64_t> callgrind_collected(std::string_view log);
/// The count of a callgrind output file's "totals: N" line (or "summary: N" of older versions).
[[nodiscard]] std::optional<std::uint64_t> callgrind_totals(std::string_view out_file_text);
/// "Valgrind-3.19.0" from the log's "Using Valgrind-3.19.0 and LibVEX" line; empty when absent.
[[nodiscard]] std::string valgrind_version(std::string_view log);

/// 6286730131 as "6,286,730,131".
[[nodiscard]] std::string group_digits(std::uint64_t n);

}  // namespace fleetwatt::tools
