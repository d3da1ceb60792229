// GPU ownership with per-node free counts bucketed for fast first-fit lookups.
#include "fleetwatt/sim/fleet/cluster.hpp"

#include "fleetwatt/core/assert.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

namespace fleetwatt::sim {

Cluster::Cluster(std::uint32_t nodes, std::uint32_t gpus_per_node)
    : Cluster(std::span<const NodeBlock>(std::vector<NodeBlock>{{nodes, gpus_per_node}})) {}

Cluster::Cluster(std::span<const NodeBlock> blocks, NodeIndex node_offset) : node_offset_(node_offset) {
  std::uint64_t total = 0;
  for (const auto& b : blocks) {
    if (b.nodes == 0 || b.gpus_per_node == 0) throw std::invalid_argument("a cluster needs nodes and GPUs");
    nodes_ += b.nodes;
    total += std::uint64_t{b.nodes} * b.gpus_per_node;
    if (gpus_per_node_ != 0 && b.gpus_per_node != gpus_per_node_) uniform_ = false;
    gpus_per_node_ = std::max(gpus_per_node_, b.gpus_per_node);
  }
  if (nodes_ == 0) throw std::invalid_argument("a cluster needs nodes and GPUs");
  if (total > 0xffffffffULL) throw std::invalid_argument("a cluster of more than 2^32 GPUs");
  owner_.assign(total, kNoJob);
  node_of_gpu_.reserve(total);
  first_gpu_.reserve(nodes_ + 1);
  free_per_node_.reserve(nodes_);
  nodes_by_free_.assign(gpus_per_node_ + 1, NodeSet(nodes_));
  GpuIndex next = 0;
  NodeIndex n = 0;
  for (const auto& b : blocks)
    for (std::uint32_t i = 0; i < b.nodes; ++i, ++n) {
      first_gpu_.push_back(next);
      node_of_gpu_.insert(node_of_gpu_.end(), b.gpus_per_node, n);
      free_per_node_.push_back(b.gpus_per_node);
      nodes_by_free_[b.gpus_per_node].insert(n);
      next += b.gpus_per_node;
    }
  first_gpu_.push_back(next);
  free_total_ = next;
}

NodeIndex Cluster::first_node_with_free(std::uint32_t k) const {
  NodeIndex best = nodes_;
  for (std::uint32_t f = std::max(k, 1u); f <= gpus_per_node_; ++f)
    if (!nodes_by_free_[f].empty()) best = std::min(best, *nodes_by_free_[f].begin());
  return best;
}

std::vector<GpuIndex> Cluster::free_gpus_of(NodeIndex n) const {
  std::vector<GpuIndex> out;
  append_free_gpus(n, gpus_on(n), out);
  return out;
}

void Cluster::append_free_gpus(NodeIndex n, std::uint32_t k, std::vector<GpuIndex>& out) const {
  for (GpuIndex g = first_gpu_[n]; g < first_gpu_[n + 1] && k > 0; ++g)
    if (owner_[g] == kNoJob) {
      out.push_back(g);
      --k;
    }
}

void Cluster::set_free(NodeIndex n, std::uint32_t count) {
  const std::uint32_t was = free_per_node_[n];
  nodes_by_free_[was].erase(n);
  nodes_by_free_[count].insert(n);
  free_per_node_[n] = count;
  free_total_ = free_total_ - was + count;
}

void Cluster::allocate(JobIndex job, std::span<const GpuIndex> gpus) {
  for (GpuIndex g : gpus) {
    FLEETWATT_ASSERT(g < owner_.size(), fmt::format("GPU {} does not exist", g));
    FLEETWATT_ASSERT(
        owner_[g] == kNoJob,
        fmt::format("GPU {} double-booked: held by job #{}, asked for by job #{}", g, owner_[g], job));
  }
  // One bucket move per run of GPUs on one node, not one per GPU.
  for_each_node_run(
      gpus, [this](GpuIndex g) { return node_of(g); }, [](NodeIndex) {}, [&](GpuIndex g) { owner_[g] = job; },
      [this](NodeIndex n, std::uint32_t count) { set_free(n, free_per_node_[n] - count); });
}

void Cluster::release(JobIndex job, std::span<const GpuIndex> gpus) {
  for (GpuIndex g : gpus)
    FLEETWATT_ASSERT(g < owner_.size(), fmt::format("GPU {} released by job #{} does not exist", g, job));
  for_each_node_run(
      gpus, [this](GpuIndex g) { return node_of(g); }, [](NodeIndex) {},
      [&](GpuIndex g) {
        FLEETWATT_ASSERT(owner_[g] == job,
                         fmt::format("GPU {} released by job #{} which does not hold it", g, job));
        owner_[g] = kNoJob;
      },
      [this](NodeIndex n, std::uint32_t count) { set_free(n, free_per_node_[n] + count); });
}

}  // namespace fleetwatt::sim
