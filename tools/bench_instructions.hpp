// `fleetwatt bench --instructions`: the instruction-count regression gate. Each case of the baseline file
// (bench/instructions.toml, instruction_baseline.hpp) is a `fleetwatt run` of this very binary under
// valgrind's callgrind, whose instruction count is compared with the file's: more than the tolerance above
// fails (exit 1), more than the tolerance below passes and asks for the baseline to be lowered. Wall time on
// a shared 2-core VM varies by tens of percent from run to run; an instruction count under callgrind does not
// (docs/development.md, "Instruction-count gate"), and there is no PMU in the VM for `perf stat`.
#pragma once

#include <string>
#include <vector>

namespace fleetwatt::tools {

struct InstructionOptions {
  bool enabled = false;                         ///< --instructions
  std::string baseline = "bench/instructions.toml";
  double tolerance_pct = 3.0;
  bool update = false;                          ///< --update-baseline: write the measured counts
  std::vector<std::string> cases;               ///< --case: these alone (default: every case)
  unsigned jobs = 0;                            ///< cases measured at once; 0: one per hardware thread
};

/// Measures the cases and prints the table (stdout) and progress (stderr). Returns 0 when every case is
/// within +tolerance (or the baseline was updated), 1 when one is over it; bad input (the baseline file,
/// --case, valgrind missing) throws ConfigError (exit 2).
int bench_instructions(const InstructionOptions& o);

}  // namespace fleetwatt::tools
