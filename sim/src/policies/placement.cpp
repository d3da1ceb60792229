// First-fit placement.
#include <algorithm>
#include <optional>

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
  // The set walks in ascending order, so the servers taken whole are the free ones up to the last taken.
  std::uint32_t remaining = n_gpus;
  std::optional<NodeIndex> last_whole;
  for (NodeIndex n : c.nodes_with_free(g)) {
    if (remaining < g) break;
    for (GpuIndex i = c.first_gpu(n); i < c.first_gpu(n) + g; ++i) out.push_back(i);
    last_whole = n;
    remaining -= g;
  }
  const auto taken_whole = [&](NodeIndex n) { return last_whole && n <= *last_whole && c.free_gpus(n) == g; };
  // ...then the rest from the lowest-numbered servers with room.
  for (NodeIndex n = 0; n < c.nodes() && remaining > 0; ++n) {
    if (c.free_gpus(n) == 0 || taken_whole(n)) continue;
    const std::size_t before = out.size();
    c.append_free_gpus(n, remaining, out);
    remaining -= static_cast<std::uint32_t>(out.size() - before);
  }
  if (remaining > 0) return std::nullopt;
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fleetwatt::sim
