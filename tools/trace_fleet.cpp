// Node list -> fleet TOML: one node group per (GPUs per node, model), largest nodes first, then by model
// name: the output is the same on every run, placement tries the big (A800 stand-in) servers first, and the
// first group, whose GPU type is the reference for run-time matching, is the most capable.
#include "trace_fleet.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "fleetwatt/core/csv_reader.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/text_output.hpp"

namespace fleetwatt::tools {

std::string preset_for_model(const std::string& model) {
  static const std::map<std::string, std::string> known = {
      {"P100", "p100"}, {"V100M16", "v100"}, {"V100M32", "v100"}, {"T4", "t4"}, {"A10", "a10"}};
  const auto it = known.find(model);
  return it == known.end() ? std::string{} : it->second;
}

int write_trace_fleet(const std::string& file, const std::string& output, const std::string& stand_in,
                      double node_base_W) {
  std::ifstream in(file);
  if (!in) throw core::TraceFormatError({file, 0, 0}, "file", "cannot be opened");
  core::CsvReader csv(in, file);
  (void)csv.next();  // the header: sn,cpu_milli,memory_mib,gpu,model
  std::uint32_t nodes = 0, gpus = 0;
  // (GPUs per node, model) -> nodes; GPUs per node descending, then model name.
  using Key = std::pair<std::uint32_t, std::string>;
  auto order = [](const Key& a, const Key& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  };
  std::map<Key, std::uint32_t, decltype(order)> groups(order);
  while (const auto row = csv.next()) {
    const auto& f = row->fields;
    if (f.size() != 5)
      throw core::TraceFormatError({file, row->line, 0}, "record",
                                   "expected sn,cpu_milli,memory_mib,gpu,model");
    const auto g = core::parse_integer(f[3].text);
    if (!g || *g < 0 || *g > std::numeric_limits<std::uint32_t>::max())
      throw core::TraceFormatError(csv.where(*row, 3), "gpu",
                                   fmt::format("'{}' is not a GPU count", f[3].text));
    if (*g == 0) continue;  // CPU-only nodes run no GPU task
    ++nodes;
    gpus += static_cast<std::uint32_t>(*g);
    ++groups[{static_cast<std::uint32_t>(*g), f[4].text.empty() ? "unknown" : f[4].text}];
  }
  if (nodes == 0) throw core::TraceFormatError({file, 0, 0}, "gpu", "no node with GPUs");
  core::write_text_output(output, "--output", [&](std::ostream& out) {
    out << fmt::format("# Fleet derived by `fleetwatt trace fleet` from {}\n",
                       std::filesystem::path(file).filename().string());
    out << fmt::format("# recorded: {} GPU nodes holding {} GPUs, {} (GPUs per node, model) groups\n", nodes,
                       gpus, groups.size());
    out << "# models -> presets: P100 -> p100, V100M16 and V100M32 -> v100, T4 -> t4, A10 -> a10;\n";
    out << fmt::format(
        "# anonymised models (G2, G3, ...) have no public datasheet: \"{}\" stands in for them.\n", stand_in);
    out << "[fleet]\n";
    out << fmt::format("node_base_w = {}\n", node_base_W);
    for (const auto& [key, n] : groups) {
      const auto& [per_node, model] = key;
      std::string preset = preset_for_model(model);
      const bool anonymised = preset.empty();
      if (anonymised) preset = stand_in;
      out << fmt::format(
          "\n[[fleet.group]]\nname = \"{}x{}\"\nnodes = {}\ngpus_per_node = {}\ngpu = \"{}\"{}\n", per_node,
          model, n, per_node, preset,
          anonymised ? fmt::format("  # {}: anonymised model, stand-in", model) : "");
    }
  });
  std::cout << fmt::format("{} node groups, {} nodes, {} GPUs written to {}\n", groups.size(), nodes, gpus,
                           output);
  return 0;
}

}  // namespace fleetwatt::tools
