// `fleetwatt run SCENARIO`: simulate a scenario and write its HDF5 result file and summary.
#include <fmt/format.h>

#include <iostream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/runs/output_path.hpp"
#include "fleetwatt/runs/region.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "heartbeat.hpp"
#include "region_run.hpp"
#include "scenario_run.hpp"

namespace fleetwatt::tools {

namespace {
struct RunOptions {
  std::string scenario;
  std::string output;
  std::optional<std::uint64_t> seed;
  std::string band;
  std::vector<std::string> overrides;
  bool quiet = false;
  std::uint64_t max_output = kDefaultMaxOutputBytes;
  std::uint64_t max_memory = 0;  // 0: the default, 2 GiB or the available memory
};

int run_scenario(const RunOptions& o) {
  // A region file ([[site]] tables) runs its sites, each as a scenario would run (tools/region_run.hpp).
  if (runs::is_region_file(o.scenario))
    return run_region(
        {o.scenario, o.output, o.seed, o.band, o.overrides, o.quiet, o.max_output, o.max_memory});
  set_polling(false);   // until the simulation: building the workload polls nothing (cli_support.hpp)
  Heartbeat heartbeat;  // lines on a stderr that is not a terminal (heartbeat.hpp)
  heartbeat.phase("loading the scenario");
  runs::Scenario scenario = runs::load_scenario(o.scenario, o.overrides);
  // -o is relative to the current directory; the scenario's [output] path was resolved against its folder.
  const bool given = !o.output.empty();
  const std::filesystem::path out = given ? std::filesystem::path(o.output) : scenario.output.path;
  // Before the workload is built and simulated: an unwritable result path must not cost a whole run.
  // The scenario's own [output] path stays in its folder: running a scenario someone else wrote must not
  // replace a file elsewhere. -o is the user's choice.
  if (!given) runs::check_output_confined(scenario);
  check_run_output_path(out, given ? jobs::SourceLocation{} : scenario.output.path_where,
                        given ? "-o" : "output.path", scenario);
  // Generated jobs are drawn as the run goes: memory follows the running and queued jobs.
  heartbeat.phase("drawing the workload");
  runs::PreparedRun r = runs::prepare_streamed_run(std::move(scenario), {o.seed, band_override(o.band)},
                                                   {nullptr, memory_limit_bytes(o.max_memory)});
  print_warnings(r.scenario);
  check_output_size(r, o.max_output);
  check_memory_size(r, o.max_memory);
  set_polling(true);
  heartbeat.phase("simulating");
  const std::string summary = simulate_to_file(r, out, heartbeat.callback(progress_printer()), &stop_flag());
  heartbeat.stop();  // no line after the summary
  if (!o.quiet) {
    std::cout << summary;
    std::cout << fmt::format("  {:<28}{}\n", "result file", out.string());
  }
  return 0;
}
}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd =
      app.add_subcommand("run", "Simulate a scenario; write an HDF5 result file and print a summary");
  cmd->add_option(
         "scenario", opts->scenario,
         "Scenario TOML file (docs/scenario.md, 'Scenario reference'): [fleet] of identical nodes or of "
         "[[fleet.group]] node groups (nodes, gpus_per_node, gpu; one GPU type per job), [facility], "
         "[predictor], [scheduler], [workload], [output]; or a region file of [[site]] tables (docs/cli.md, "
         "'A region of sites'), each site a scenario, run one after another into OUTPUT.sites/ with the "
         "region's summed series and coincident peak in OUTPUT")
      ->required();
  cmd->add_option("-o,--output", opts->output, "Result file (HDF5); default: the scenario's [output] path");
  cmd->add_option("--seed", opts->seed, "Random seed; overrides the scenario's seed");
  cmd->add_option("--band", opts->band,
                  "Run every predicted job at the low, mid or high end of its uncertainty band; overrides "
                  "the scenario's [predictor] band")
      ->check(CLI::IsMember({"low", "mid", "high"}));
  add_set_option(*cmd, opts->overrides);
  add_max_output_option(*cmd, opts->max_output);
  add_max_memory_option(*cmd, opts->max_memory);
  cmd->add_flag("-q,--quiet", opts->quiet, "Print no summary");
  cmd->callback([opts, &action] { action = [opts] { return run_scenario(*opts); }; });
}

}  // namespace fleetwatt::tools
