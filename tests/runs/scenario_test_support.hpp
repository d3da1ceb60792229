// Helpers of the scenario-parsing tests: the message a bad scenario is refused with (parsed, or prepared to
// run), and a minimal job.
#pragma once

#include <string>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"

namespace fleetwatt::test {

/// The message of the ConfigError that parsing `toml` (as "bad.toml") throws, or "(no error)".
inline std::string error_of(const std::string& toml) {
  try {
    (void)runs::parse_scenario(toml, "bad.toml");
  } catch (const jobs::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

/// The message of the error that preparing `toml` (as "bad.toml") to run throws, or "(no error)": what a
/// scenario's services refuse when they are played.
inline std::string prepare_error_of(const std::string& toml) {
  try {
    (void)runs::prepare_run(runs::parse_scenario(toml, "bad.toml"));
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

/// A [workload] with one one-GPU ViT job, so that a scenario has something to run.
inline const std::string kJobs = "[workload]\n[[workload.jobs]]\nn_gpus = 1\nclass = \"vit\"\n";

}  // namespace fleetwatt::test
