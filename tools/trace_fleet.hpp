// `fleetwatt trace fleet`: a [fleet] section with one [[fleet.group]] per (GPUs per node, model) of a
// recorded node list (Alibaba GPU 2023's openb_node_list_gpu_node.csv).
#pragma once

#include <string>

namespace fleetwatt::tools {

/// Writes the fleet TOML derived from `node_list` to `output` (groups with the most GPUs per node first, then
/// by model name); anonymised models (G2, G3, any the mapping does not know) get the preset `stand_in`.
/// Returns the exit status; bad input throws (TraceFormatError).
int write_trace_fleet(const std::string& node_list, const std::string& output, const std::string& stand_in,
                      double node_base_W);

/// The GPU preset a recorded model name maps to: P100 -> p100, V100M16 and V100M32 -> v100, T4 -> t4,
/// A10 -> a10; empty for models with no public counterpart (anonymised G2, G3, ...).
[[nodiscard]] std::string preset_for_model(const std::string& model);

}  // namespace fleetwatt::tools
