// `fleetwatt compare SCENARIO --policies fifo,sjf,...`: run several scheduling policies on the scenario's
// identical workload and print, and write as CSV and HDF5, one row per policy.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/runs/policy_comparison.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"
#include "heartbeat.hpp"

namespace fleetwatt::tools {

namespace {

struct CompareOptions {
  std::string scenario;
  std::string policies = "fifo,sjf,easy,powercap,carbon,consolidate";
  std::string output;
  std::string csv;
  std::optional<std::uint64_t> seed;
  unsigned threads = 0;
  std::optional<double> facility_interval_s;
  std::uint64_t max_memory = 0;  // per policy run (0: the default, 2 GiB or the available memory)
  std::vector<std::string> overrides;
  bool quiet = false;
  bool policies_given = false;  ///< --policies was on the command line (else unrunnable ones are left out)
};

// Names separated by commas, with the blanks around each name dropped ("fifo, sjf" is fifo and sjf).
std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  std::string name;
  while (std::getline(ss, name, ',')) {
    const auto first = name.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    out.push_back(name.substr(first, name.find_last_not_of(" \t") - first + 1));
  }
  return out;
}

int compare(const CompareOptions& o) {
  // A flag has no file position: the error names the flag alone.
  const auto policies = split_names(o.policies);
  if (policies.empty()) throw jobs::ConfigError({}, "--policies", "no policy named");
  for (const auto& p : policies) {
    bool known = false;
    std::vector<std::string> names;
    for (const auto& e : sim::scheduler_entries()) {
      known = known || e.name == p;
      names.push_back(e.name);
    }
    if (!known)
      throw jobs::ConfigError({}, "--policies",
                              fmt::format("unknown policy '{}' (known: {})", p, fmt::join(names, ", ")));
  }
  set_polling(false);   // until the policies run: building the workload polls nothing (cli_support.hpp)
  Heartbeat heartbeat;  // lines on a stderr that is not a terminal (heartbeat.hpp)
  heartbeat.phase("loading the scenario");
  runs::Scenario scenario = runs::load_scenario(o.scenario, o.overrides);
  // Before any policy runs: an unwritable result file must not cost the whole comparison.
  if (!o.output.empty()) check_run_output_path(o.output, {}, "-o", scenario);
  if (!o.csv.empty()) check_run_output_path(o.csv, {}, "--csv", scenario);
  heartbeat.phase("drawing the workload");
  runs::PreparedRun r = runs::prepare_run(std::move(scenario), {o.seed, std::nullopt},
                                          {nullptr, memory_limit_bytes(o.max_memory)});
  // Node series are not kept by compare; a long interval keeps big fleets fast.
  r.setup.node_interval = sim::Duration::from_seconds(std::max(3600.0, r.scenario.workload.horizon_s));
  if (o.facility_interval_s) r.setup.facility_interval = sim::Duration::from_seconds(*o.facility_interval_s);
  check_memory_size(r, o.max_memory);
  const unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  // With the default list, a policy the scenario cannot run is left out with its reason; a missing power cap
  // is derived. Each policy is built before any runs, so parameter errors and warnings come first.
  set_polling(true);
  // The policies run at once, each on its own engine: the heartbeat names the phase, not one engine's time.
  heartbeat.phase(fmt::format("simulating {} polic{}", policies.size(), policies.size() == 1 ? "y" : "ies"));
  const auto comparison = runs::compare_with_defaults(r, policies, !o.policies_given, threads, &stop_flag(),
                                                      [&] { print_warnings(r.scenario); });
  heartbeat.stop();  // nothing after the table (writing the files takes a moment)
  const auto& rows = comparison.rows;
  if (!o.quiet) std::cout << results::format_comparison(rows);
  for (const auto& note : comparison.notes) (o.quiet ? std::cerr : std::cout) << "note: " << note << '\n';
  if (!o.csv.empty()) {
    core::write_text_output(o.csv, "--csv",
                            [&](std::ostream& out) { results::write_comparison_csv(out, rows); });
  }
  if (!o.output.empty()) {
    const sim::Cluster cluster(sim::FleetLayout(sim::fleet_groups(r.setup)).blocks());
    results::write_comparison_h5(o.output, rows, r.scenario.text, cluster);
  }
  return 0;
}

}  // namespace

void add_compare_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Run several scheduling policies on one scenario's identical workload and compare them");
  cmd->add_option("scenario", o->scenario, "Scenario TOML file")->required()->check(CLI::ExistingFile);
  auto* policies = cmd->add_option(
      "--policies", o->policies,
      "Comma-separated policies (default fifo,sjf,easy,powercap,carbon,consolidate); parameters come "
      "from [scheduler.NAME] tables of the scenario. A power cap the scenario does not give is 90 % of a "
      "FIFO run's peak; with the default list, a policy the scenario cannot run (carbon without a carbon "
      "signal) is left out with a note");
  cmd->add_option("-o,--output", o->output, "HDF5 file: /comparison table and /policies/NAME groups");
  cmd->add_option("--csv", o->csv, "CSV file of the table (one row per policy)");
  cmd->add_option("--seed", o->seed, "Random seed; overrides the scenario's seed");
  cmd->add_option("--threads", o->threads, "Policies run at once (default: the machine's cores)");
  cmd->add_option("--facility-interval", o->facility_interval_s,
                  "Facility series interval, s (default: the scenario's; at least 0.001); p95 power is over "
                  "these means")
      ->check(CLI::Range(runs::kMinSeriesIntervalS, 1e9));
  add_max_memory_option(*cmd, o->max_memory);
  add_set_option(*cmd, o->overrides);
  cmd->add_flag("-q,--quiet", o->quiet, "Print no table");
  cmd->callback([o, policies, &action] {
    o->policies_given = policies->count() > 0;
    action = [o] { return compare(*o); };
  });
}

}  // namespace fleetwatt::tools
