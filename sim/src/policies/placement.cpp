// First-fit placement.
#include <algorithm>

#include "fleetwatt/sim/policies/scheduler.hpp"

namespace fleetwatt::sim {

std::optional<Placement> FirstFitPlacement::place(const Cluster& c, std::uint32_t n_gpus) const {
  const std::uint32_t g = c.gpus_per_node();
  if (n_gpus == 0 || n_gpus > c.free_gpus()) return std::nullopt;
  Placement out;
  if (n_gpus <= g) {
    // A job that fits in one server is never split across servers: it waits for one with room (and
    // allocates nothing while it waits: a FIFO head is tried at every job's end).
    const NodeIndex n = c.first_node_with_free(n_gpus);
    if (n >= c.nodes()) return std::nullopt;
    out.reserve(n_gpus);
    c.append_free_gpus(n, n_gpus, out);
    return out;
  }
  out.reserve(n_gpus);
  // Multi-node jobs: whole free servers first (fewest servers, least fragmentation), lowest-numbered first...
  std::uint32_t remaining = n_gpus;
  std::vector<NodeIndex> used;
  for (NodeIndex n : c.nodes_with_free(g)) {
    if (remaining < g) break;
    for (GpuIndex i = c.first_gpu(n); i < c.first_gpu(n) + g; ++i) out.push_back(i);
    used.push_back(n);
    remaining -= g;
  }
  // ...then the rest from the lowest-numbered servers with room.
  for (NodeIndex n = 0; n < c.nodes() && remaining > 0; ++n) {
    if (c.free_gpus(n) == 0 || std::find(used.begin(), used.end(), n) != used.end()) continue;
    const std::size_t before = out.size();
    c.append_free_gpus(n, remaining, out);
    remaining -= static_cast<std::uint32_t>(out.size() - before);
  }
  if (remaining > 0) return std::nullopt;
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fleetwatt::sim
