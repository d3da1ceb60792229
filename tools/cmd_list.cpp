// `fleetwatt list`: the registered predictors, schedulers, placement policies, interconnect kinds and trace
// formats with their declared parameters (the same declarations that check a scenario's keys), then job
// classes, GPU presets, the model zoo and power-law presets. `--markdown` prints the registries as the
// tables of docs/components.md.
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <iostream>

#include "commands.hpp"
#include "fleetwatt/jobs/request_trace.hpp"
#include "fleetwatt/jobs/trace.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictor_registry.hpp"
#include "fleetwatt/models/predictors/table_predictor.hpp"
#include "fleetwatt/models/training/power_law.hpp"
#include "fleetwatt/models/zoo/model_zoo.hpp"
#include "fleetwatt/sim/engine/failures_config.hpp"
#include "fleetwatt/sim/fleet/smoothing_config.hpp"
#include "fleetwatt/sim/policies/policy_registry.hpp"
#include "fleetwatt/sim/power/facility_model.hpp"
#include "fleetwatt/sim/serving/service_scheduler.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"
#include "list_format.hpp"

namespace fleetwatt::tools {
namespace {

// The terminal's width, or 80 when stdout is not a terminal (a file, a pipe, a test).
std::size_t output_width() {
  winsize w{};
  if (isatty(STDOUT_FILENO) == 1 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col >= 40)
    return w.ws_col;
  return 80;
}

// The registries whose entries declare parameters: what --markdown prints.
std::vector<ListSection> registry_sections() {
  std::vector<ListSection> out;
  ListSection& predictors = out.emplace_back(ListSection{"predictors ([predictor] kind)", {}});
  const auto registry = models::PredictorRegistry::with_builtins();
  for (const auto& e : registry.entries()) predictors.entries.push_back({e.name, e.description, e.params});
  ListSection& schedulers =
      out.emplace_back(ListSection{"schedulers ([scheduler] policy; parameters in [scheduler.NAME])", {}});
  for (const auto& e : sim::scheduler_entries())
    schedulers.entries.push_back({e.name, e.description, e.params});
  ListSection& placements =
      out.emplace_back(ListSection{"placement ([scheduler] placement; parameters in [scheduler])", {}});
  for (const auto& e : sim::placement_entries())
    placements.entries.push_back({e.name, e.description, e.params});
  ListSection& fabrics = out.emplace_back(ListSection{"interconnects ([topology] kind)", {}});
  for (const auto& k : topologies::fabric_kinds())
    fabrics.entries.push_back({std::string(k.name), std::string(k.description), k.params});
  fabrics.entries.push_back(
      {"(every kind)", "keys every [topology] kind takes", topologies::topology_common_params()});
  ListSection& cooling = out.emplace_back(ListSection{"facility cooling ([facility] cooling)", {}});
  for (const auto& k : sim::cooling_kinds()) cooling.entries.push_back({k.name, k.description, k.params});
  cooling.entries.push_back({"(every kind)", "keys every [facility] takes", sim::facility_common_params()});
  ListSection& traces = out.emplace_back(ListSection{"trace formats ([workload.trace] format)", {}});
  for (const auto& f : jobs::trace_formats()) traces.entries.push_back({f.name, f.description, f.params});
  traces.entries.push_back(
      {"(every format)", "keys every [workload.trace] takes", jobs::trace_common_params()});
  ListSection& requests = out.emplace_back(ListSection{"request trace formats (fleetwatt serve TRACE)", {}});
  for (const auto& f : jobs::request_trace_formats())
    requests.entries.push_back({f.name, f.description, f.params});
  ListSection& serving = out.emplace_back(
      ListSection{"service schedulers ([[workload.service]] scheduler; serve --scheduler)", {}});
  for (const auto& s : sim::service_schedulers())
    serving.entries.push_back({s.name, s.description, s.params});
  ListSection& failures = out.emplace_back(ListSection{"job interruptions ([failures])", {}});
  failures.entries.push_back({"failures",
                              "interruptions of running jobs, restarts and lost work (off unless enabled)",
                              sim::failure_params()});
  ListSection& smoothing = out.emplace_back(ListSection{"GPU power smoothing ([smoothing])", {}});
  smoothing.entries.push_back(
      {"smoothing", "a floor and slew limits on running jobs' GPUs, or burn to the floor (off unless a mode)",
       sim::smoothing_params()});
  return out;
}

std::vector<ListSection> catalogue_sections() {
  std::vector<ListSection> out;
  ListSection& classes =
      out.emplace_back(ListSection{"job classes of the table predictor ([[workload.jobs]] class)", {}});
  for (const auto& c : models::TablePredictor::builtin_classes())
    classes.entries.push_back(
        {c.name,
         fmt::format("peak {:.2f} W for {:.2f} s, valley {:.2f} W for {:.2f} s per epoch at {:.0f} samples",
                     c.reference.peak_W, c.reference.peak_s, c.reference.valley_W, c.reference.valley_s,
                     c.reference_samples),
         {}});
  ListSection& gpus = out.emplace_back(ListSection{"GPU presets ([fleet] gpu)", {}});
  for (const auto& g : models::gpu_presets())
    gpus.entries.push_back(
        {g.id, fmt::format("{} (TDP {:.0f} W, idle {:.0f} W)", g.name, g.tdp_W, g.idle_W), {}});
  ListSection& zoo =
      out.emplace_back(ListSection{"model zoo ([[workload.jobs]] model; fleetwatt predict --model)", {}});
  for (const auto& z : models::zoo_entries()) {
    std::string text = fmt::format("{} input, default {}", z.input_kind, z.default_input);
    // LLMs: the parameter count, the active share of a mixture of experts and the training FLOPs per token.
    if (const models::ModelCount m = models::count_model(z.name); m.blocks > 0 && m.params >= 1e9) {
      text += fmt::format("; {:.4g} B parameters", m.params / 1e9);
      if (m.expert_params > 0.0) text += fmt::format(" ({:.4g} B active)", m.active_params / 1e9);
      text += fmt::format("; {:.4g} GFLOP per training token at {}",
                          m.training_flops_per_token(m.input_size) / 1e9, m.input_size);
    }
    zoo.entries.push_back({z.name, text, {}});
  }
  ListSection& laws =
      out.emplace_back(ListSection{"power-law presets (hardware efficiency factor fits)", {}});
  for (const auto& p : models::power_law_presets())
    laws.entries.push_back({p.id, fmt::format("{} ({})", p.description, p.gpu), {}});
  return out;
}

}  // namespace

void add_list_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand(
      "list",
      "List predictors, schedulers, placement policies, interconnects and trace formats with their "
      "parameters, then job classes and GPU presets");
  auto markdown = std::make_shared<bool>(false);
  cmd->add_flag("--markdown", *markdown,
                "Print the predictors, schedulers, placements, interconnects and trace formats as Markdown "
                "tables (docs/components.md's)");
  cmd->callback([&action, markdown] {
    action = [markdown] {
      if (*markdown) {
        std::cout << format_list_markdown(registry_sections());
        return 0;
      }
      auto sections = registry_sections();
      for (auto& s : catalogue_sections()) sections.push_back(std::move(s));
      std::cout << format_list_text(sections, output_width());
      return 0;
    };
  });
}

}  // namespace fleetwatt::tools
