// One scenario simulated into one result file: the body of `fleetwatt run`, shared with `fleetwatt sweep` so
// that a sweep member is, bit for bit, the run the same scenario, overrides and seed give.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/sim/engine/engine.hpp"

namespace fleetwatt::tools {

/// Simulates a prepared run and writes its result file at `out` (under a temporary name, renamed when the
/// run succeeded); `stop` interrupts it (sim::Interrupted, no file). Returns the summary as `fleetwatt run`
/// prints it.
std::string simulate_to_file(runs::PreparedRun& r, const std::filesystem::path& out,
                             const std::function<void(const sim::Progress&)>& progress,
                             const std::atomic<bool>* stop);

}  // namespace fleetwatt::tools
