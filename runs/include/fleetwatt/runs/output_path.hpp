// Where a run may write its result file, checked before anything is simulated: a path that can be written,
// that is none of the files the run reads, and, for a scenario's own [output] path, inside the scenario's
// folder (a scenario someone else wrote must not reach outside it). Shared by the command line and the
// Python binding, so both refuse the same paths with the same messages.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/runs/scenario.hpp"

namespace fleetwatt::runs {

/// The files a run of `scenario` reads: the scenario file and every string value of its document that names
/// an existing regular file, resolved against the scenario's folder as the loader resolves them (jobs_csv,
/// a trace, the topology's file, weather and grid-signal CSVs, gpu_file, ...). [output] path is not one.
[[nodiscard]] std::vector<std::filesystem::path> scenario_inputs(const Scenario& scenario);

/// Refuses (ConfigError at `where`, naming `key`) a result path that cannot be written: a folder, something
/// other than a regular file, a path in a missing folder or in one where no file can be created, or one of
/// `inputs`. A probe file beside the target is created and removed; nothing else is left behind.
void check_output_path(const std::filesystem::path& path, const core::SourceLocation& where,
                       const std::string& key, const std::vector<std::filesystem::path>& inputs);

/// Refuses (ConfigError at [output] path) a scenario's own result path that leaves the scenario's folder:
/// an absolute path elsewhere or one climbing out with "..", symbolic links followed. A path given by the
/// user (-o, Python's output=) is not checked here.
void check_output_confined(const Scenario& scenario);

}  // namespace fleetwatt::runs
