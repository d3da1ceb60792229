// Subcommands of the fleetwatt command. Each registers itself on the CLI11 app and sets `action` to the
// function that runs it; main() calls that action once parsing succeeded.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace fleetwatt::tools {

/// The chosen subcommand's body; returns the process exit status.
using Action = std::function<int()>;

void add_run_command(CLI::App& app, Action& action);
void add_bench_command(CLI::App& app, Action& action);
void add_list_command(CLI::App& app, Action& action);
void add_powerlaw_command(CLI::App& app, Action& action);
void add_trace_command(CLI::App& app, Action& action);
void add_compare_command(CLI::App& app, Action& action);
void add_predict_command(CLI::App& app, Action& action);
void add_topology_command(CLI::App& app, Action& action);
void add_calibrate_command(CLI::App& app, Action& action);
void add_fit_command(CLI::App& app, Action& action);
void add_validate_command(CLI::App& app, Action& action);
void add_export_command(CLI::App& app, Action& action);
void add_report_command(CLI::App& app, Action& action);
void add_sweep_command(CLI::App& app, Action& action);
void add_serve_command(CLI::App& app, Action& action);

}  // namespace fleetwatt::tools
