// Running several scheduling policies on one identical workload and what each costs: job times,
// utilisation, IT and facility energy, peak and p95 facility power, carbon and electricity cost (a row of
// results/hdf5/comparison_table.hpp each). Carbon and cost integrate the facility power exactly against the
// grid signals of the setup (step interpolation), per facility interval and in total.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/results/hdf5/comparison_table.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"
#include "fleetwatt/sim/power/grid_signal.hpp"

namespace fleetwatt::runs {

/// Runs one policy (by registry name) on the prepared run's jobs. The scenario's [scheduler] is the base
/// configuration (placement, carbon signal, per-policy [scheduler.NAME] parameters); the run's setup may be
/// changed before (compare keeps no node series and may set its own facility interval). A raised `stop`
/// ends the run (sim::Interrupted).
[[nodiscard]] results::ComparisonRow run_policy(const runs::PreparedRun& run, const std::string& policy,
                                                const std::atomic<bool>* stop = nullptr);
/// The same with a policy object built outside the registry (a Python policy), whose row is named `name`,
/// with the scenario's placement; `before_run` (if set) sees the engine before it runs.
[[nodiscard]] results::ComparisonRow run_policy(const runs::PreparedRun& run, const std::string& name,
                                                std::unique_ptr<sim::Scheduler> scheduler,
                                                const std::function<void(sim::Engine&)>& before_run = {},
                                                const std::atomic<bool>* stop = nullptr);

/// Runs every policy, up to `threads` at a time; rows in the order of `policies`. A raised `stop` ends
/// every run (sim::Interrupted, after the threads have returned).
[[nodiscard]] std::vector<results::ComparisonRow> compare_policies(const runs::PreparedRun& run,
                                                                   const std::vector<std::string>& policies,
                                                                   unsigned threads,
                                                                   const std::atomic<bool>* stop = nullptr);

/// A comparison as `fleetwatt compare` runs it: the rows of the policies it ran, in the order asked, and a
/// line for each policy it had to complete or leave out.
struct Comparison {
  std::vector<results::ComparisonRow> rows;
  std::vector<std::string> notes;  ///< "powercap: cap_w = ... (derived: ...)", "carbon: left out: ..."
};

/// The share of a FIFO run's peak facility power that a power cap gets when the scenario gives none: low
/// enough that the cap binds at the FIFO run's highest moments, high enough that every job still starts.
inline constexpr double kDerivedPowerCapShare = 0.9;

/// Runs `policies` on the prepared run (as compare_policies), first completing what the scenario leaves
/// out: a power cap (`[scheduler.powercap] cap_w`) missing is derived as kDerivedPowerCapShare of a FIFO
/// run's peak facility power (the FIFO row when it is compared, else a FIFO run of its own); any other
/// policy that cannot be built from the scenario (a carbon policy without a carbon signal) is left out with
/// its reason when `leave_out_unrunnable`, else its error is thrown. Each completion or omission is a note.
/// Every policy is built once before any runs, so bad parameters fail first; `built` (if set) is called
/// then, before the first run (to print the warnings building gave).
[[nodiscard]] Comparison compare_with_defaults(runs::PreparedRun& run,
                                               const std::vector<std::string>& policies,
                                               bool leave_out_unrunnable, unsigned threads,
                                               const std::atomic<bool>* stop = nullptr,
                                               const std::function<void()>& built = {});

}  // namespace fleetwatt::runs
