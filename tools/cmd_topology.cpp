// `fleetwatt topology SCENARIO [--dot FILE]`: builds the scenario's interconnect and describes it (vertex
// and link counts, bandwidths, idle network power), or writes it as Graphviz DOT for inspection.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>

#include "cli_support.hpp"
#include "commands.hpp"
#include "fleetwatt/core/text_output.hpp"
#include "fleetwatt/runs/engine_setup.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/topologies/flows/fleet_network.hpp"
#include "fleetwatt/topologies/graph/graph_io.hpp"

namespace fleetwatt::tools {

namespace {

struct TopologyOptions {
  std::string scenario;
  std::string dot;
};

int describe(const TopologyOptions& o) {
  const auto scenario = runs::load_scenario(o.scenario);
  const auto setup = runs::engine_setup(scenario);
  if (!setup.topology)
    throw jobs::ConfigError({scenario.file.string(), 0, 0}, "topology",
                            "the scenario has no [topology] section");
  auto topo = topologies::build_topology(*setup.topology, setup.nodes, setup.gpus_per_node);
  if (!o.dot.empty()) {
    if (o.dot == "-") {
      topologies::write_dot(topo, std::cout);
    } else {
      core::write_text_output(o.dot, "--dot", [&](std::ostream& out) { topologies::write_dot(topo, out); });
    }
    return 0;
  }
  std::map<std::string, std::size_t> kinds;
  for (const auto v : boost::make_iterator_range(boost::vertices(topo.graph())))
    ++kinds[std::string(topologies::to_string(topo.vertex(v).kind))];
  std::cout << fmt::format("{}: {} vertices, {} links\n", o.scenario, topo.vertex_count(), topo.link_count());
  for (const auto& [k, n] : kinds) std::cout << fmt::format("  {:<12}{}\n", k, n);
  const topologies::FleetNetwork net(std::move(topo), *setup.topology);
  std::cout << fmt::format("storage bandwidth {:.1f} GB/s; NIC bandwidth per server {:.1f} GB/s\n",
                           net.storage_Bps() / 1e9, net.node_nic_Bps(0) / 1e9);
  std::cout << fmt::format("idle network power {:.1f} kW\n", net.idle_power_W() / 1e3);
  return 0;
}

}  // namespace

void add_topology_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<TopologyOptions>();
  CLI::App* cmd =
      app.add_subcommand("topology", "Build a scenario's interconnect and describe it or write DOT");
  cmd->add_option("scenario", opts->scenario, "Scenario TOML file with a [topology] section")->required();
  cmd->add_option("--dot", opts->dot, "Write the topology as Graphviz DOT to FILE ('-' for stdout)");
  cmd->callback([opts, &action] { action = [opts] { return describe(*opts); }; });
}

}  // namespace fleetwatt::tools
