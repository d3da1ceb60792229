// `fleetwatt list`: the registered predictors, schedulers, placement policies, interconnect kinds and GPU
// presets.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "fleetwatt/models/gpu_hardware.hpp"
#include "fleetwatt/models/model_zoo.hpp"
#include "fleetwatt/models/power_law.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/models/table_predictor.hpp"
#include "fleetwatt/sim/policy_registry.hpp"
#include "fleetwatt/topologies/topology_config.hpp"

namespace fleetwatt::tools {

static int list_components() {
  std::cout << "predictors ([predictor] kind):\n";
  const auto predictors = models::PredictorRegistry::with_builtins();
  for (const auto& e : predictors.entries()) std::cout << fmt::format("  {:<16}{}\n", e.name, e.description);
  std::cout << "job classes of the table predictor ([[workload.jobs]] class):\n";
  for (const auto& c : models::TablePredictor::builtin_classes())
    std::cout << fmt::format(
        "  {:<16}peak {:.2f} W for {:.2f} s, valley {:.2f} W for {:.2f} s per epoch at {:.0f} "
        "samples\n",
        c.name, c.reference.peak_W, c.reference.peak_s, c.reference.valley_W, c.reference.valley_s,
        c.reference_samples);
  std::cout << "schedulers ([scheduler] policy):\n";
  for (const auto& e : sim::scheduler_entries())
    std::cout << fmt::format("  {:<16}{}\n", e.name, e.description);
  std::cout << "placement ([scheduler] placement):\n";
  for (const auto& e : sim::placement_entries())
    std::cout << fmt::format("  {:<16}{}\n", e.name, e.description);
  std::cout << "interconnects ([topology] kind):\n";
  for (const auto& k : topologies::fabric_kinds())
    std::cout << fmt::format("  {:<16}{}\n", k.name, k.description);
  std::cout << "GPU presets ([fleet] gpu):\n";
  for (const auto& g : models::gpu_presets())
    std::cout << fmt::format("  {:<16}{} (TDP {:.0f} W, idle {:.0f} W)\n", g.id, g.name, g.tdp_W, g.idle_W);
  std::cout << "model zoo ([[workload.jobs]] model; fleetwatt predict --model):\n";
  for (const auto& z : models::zoo_entries())
    std::cout << fmt::format("  {:<16}{} input, default {}\n", z.name, z.input_kind, z.default_input);
  std::cout << "power-law presets (hardware efficiency factor fits):\n";
  for (const auto& p : models::power_law_presets())
    std::cout << fmt::format("  {:<16}{} ({})\n", p.id, p.description, p.gpu);
  return 0;
}

void add_list_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand(
      "list", "List predictors, schedulers, placement policies, interconnects and GPU presets");
  cmd->callback([&action] { action = list_components; });
}

}  // namespace fleetwatt::tools
