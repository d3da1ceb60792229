// The fleetwatt command: subcommands for running scenarios, benchmarking and listing components.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "version.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "fleetwatt: simulate the power and energy of GPU training fleets, second by second.\n"
      "Scenarios (TOML) describe a fleet, a workload, a scheduler and a facility; results go to HDF5.",
      "fleetwatt"};
  app.set_version_flag("--version",
                       std::string("fleetwatt ") + FLEETWATT_VERSION + " (" + FLEETWATT_GIT_COMMIT + ")");
  app.require_subcommand(1);
  app.footer(
      "Run 'fleetwatt COMMAND --help' for a command's options. Example:\n"
      "  fleetwatt run examples/scenarios/day-fleet.toml -o day.h5");
  fleetwatt::tools::Action action;
  fleetwatt::tools::add_run_command(app, action);
  fleetwatt::tools::add_bench_command(app, action);
  fleetwatt::tools::add_list_command(app, action);
  fleetwatt::tools::add_powerlaw_command(app, action);
  fleetwatt::tools::add_trace_command(app, action);
  fleetwatt::tools::add_compare_command(app, action);
  fleetwatt::tools::add_predict_command(app, action);
  fleetwatt::tools::add_topology_command(app, action);
  fleetwatt::tools::add_calibrate_command(app, action);
  fleetwatt::tools::add_fit_command(app, action);
  fleetwatt::tools::add_validate_command(app, action);
  fleetwatt::tools::add_export_command(app, action);
  fleetwatt::tools::add_report_command(app, action);
  fleetwatt::tools::add_sweep_command(app, action);
  fleetwatt::tools::add_serve_command(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Usage errors are bad input too (status 2); --help and --version exit 0.
    const int code = app.exit(e);
    return code == 0 ? 0 : fleetwatt::tools::kExitBadInput;
  }
  // The commands whose long work polls the stop flag clean up themselves; the others end at the signal.
  bool polling = false;
  for (const CLI::App* sub : app.get_subcommands())
    for (const char* name : {"run", "sweep", "compare", "bench", "report"})
      polling = polling || sub->get_name() == name;
  fleetwatt::tools::install_signal_handlers(polling);
  return fleetwatt::tools::guarded([&] {
    for (const CLI::App* sub : app.get_subcommands()) fleetwatt::tools::refuse_output_over_input(*sub);
    return action();
  });
}
