// GPU ownership with per-node free counts bucketed for fast first-fit lookups.
#include "fleetwatt/sim/cluster.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace fleetwatt::sim {

Cluster::Cluster(std::uint32_t nodes, std::uint32_t gpus_per_node)
    : nodes_(nodes),
      gpus_per_node_(gpus_per_node),
      owner_(static_cast<std::size_t>(nodes) * gpus_per_node, kNoJob),
      free_per_node_(nodes, gpus_per_node),
      free_total_(nodes * gpus_per_node),
      nodes_by_free_(gpus_per_node + 1) {
  if (nodes == 0 || gpus_per_node == 0) throw std::invalid_argument("a cluster needs nodes and GPUs");
  for (NodeIndex n = 0; n < nodes; ++n) nodes_by_free_[gpus_per_node].insert(n);
}

NodeIndex Cluster::first_node_with_free(std::uint32_t k) const {
  NodeIndex best = nodes_;
  for (std::uint32_t f = std::max(k, 1u); f <= gpus_per_node_; ++f)
    if (!nodes_by_free_[f].empty()) best = std::min(best, *nodes_by_free_[f].begin());
  return best;
}

std::vector<GpuIndex> Cluster::free_gpus_of(NodeIndex n) const {
  std::vector<GpuIndex> out;
  for (GpuIndex g = n * gpus_per_node_; g < (n + 1) * gpus_per_node_; ++g)
    if (owner_[g] == kNoJob) out.push_back(g);
  return out;
}

void Cluster::move_bucket(NodeIndex n, std::uint32_t from, std::uint32_t to) {
  nodes_by_free_[from].erase(n);
  nodes_by_free_[to].insert(n);
}

void Cluster::allocate(JobIndex job, std::span<const GpuIndex> gpus) {
  for (GpuIndex g : gpus) {
    if (g >= owner_.size()) throw std::logic_error(fmt::format("GPU {} does not exist", g));
    if (owner_[g] != kNoJob)
      throw std::logic_error(
          fmt::format("GPU {} double-booked: held by job #{}, asked for by job #{}", g, owner_[g], job));
  }
  for (GpuIndex g : gpus) {
    owner_[g] = job;
    const NodeIndex n = node_of(g);
    move_bucket(n, free_per_node_[n], free_per_node_[n] - 1);
    --free_per_node_[n];
    --free_total_;
  }
}

void Cluster::release(JobIndex job, std::span<const GpuIndex> gpus) {
  for (GpuIndex g : gpus) {
    if (g >= owner_.size() || owner_[g] != job)
      throw std::logic_error(fmt::format("GPU {} released by job #{} which does not hold it", g, job));
    owner_[g] = kNoJob;
    const NodeIndex n = node_of(g);
    move_bucket(n, free_per_node_[n], free_per_node_[n] + 1);
    ++free_per_node_[n];
    ++free_total_;
  }
}

}  // namespace fleetwatt::sim
