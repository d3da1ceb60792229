// Which GPU belongs to which job. GPUs are numbered globally, node-major: node n holds GPUs
// first_gpu(n) .. first_gpu(n) + gpus_on(n) - 1. A uniform fleet has gpus_on(n) = gpus_per_node for every n
// (gpu = node * gpus_per_node + local index); a heterogeneous one is built from node groups, each of
// identical nodes, laid out one after another. Allocation is in whole GPUs and is checked so that no GPU is
// ever double-booked.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleetwatt/core/event_queue.hpp"
#include "fleetwatt/core/time.hpp"
#include "fleetwatt/sim/fleet/node_set.hpp"

namespace fleetwatt::sim {

// The clock and the event queue live in core (tools and tests drive them without the engine); sim names
// them as its own. Here because every sim header includes this one.
using core::Duration;
using core::EventId;
using core::EventQueue;
using core::format_time;
using core::Time;

using GpuIndex = std::uint32_t;
using NodeIndex = std::uint32_t;
using JobIndex = std::uint32_t;
inline constexpr JobIndex kNoJob = ~JobIndex{0};
/// The owner of the GPUs service s holds: kServiceOwner - s (far above any job's index).
inline constexpr JobIndex kServiceOwner = kNoJob - 1;
/// "No node group" (a job not placed yet).
inline constexpr std::uint32_t kNoGroup = ~std::uint32_t{0};

/// The GPUs a job runs on, sorted ascending.
using Placement = std::vector<GpuIndex>;

/// Visits `gpus` run by run of consecutive GPUs on one node, in order: enter(node) before a run's GPUs,
/// gpu(g) for each of them, leave(node, count) after, with node_of(g) naming a GPU's node. A job's GPUs come
/// server by server (ascending, node-major), so what is per server (a free-count bucket, a server's energy
/// and power) is done once per run rather than once per GPU; one pass, as the ledger's phase changes need.
template <class NodeOf, class Enter, class Gpu, class Leave>
void for_each_node_run(std::span<const GpuIndex> gpus, const NodeOf& node_of, Enter&& enter, Gpu&& gpu,
                       Leave&& leave) {
  for (std::size_t i = 0; i < gpus.size();) {
    const NodeIndex n = node_of(gpus[i]);
    enter(n);
    std::uint32_t count = 0;
    for (; i < gpus.size() && node_of(gpus[i]) == n; ++i, ++count) gpu(gpus[i]);
    leave(n, count);
  }
}

/// `count` consecutive GPUs of a GPU list on one node: a list cut run by run as for_each_node_run cuts it,
/// kept with a job's placement so that what is per server costs O(servers) at every change, not O(GPUs).
struct NodeRun {
  NodeIndex node = 0;
  std::uint32_t count = 0;
};

/// `nodes` identical nodes of `gpus_per_node` GPUs each (one group of a heterogeneous fleet).
struct NodeBlock {
  std::uint32_t nodes = 1;
  std::uint32_t gpus_per_node = 1;
};

class Cluster {
 public:
  /// A uniform fleet.
  Cluster(std::uint32_t nodes, std::uint32_t gpus_per_node);
  /// Node blocks laid out in order (the first block's nodes are 0 .. nodes - 1, and so on). `node_offset`:
  /// the fleet index of node 0, for a node group's own view of a larger fleet (rack lookups).
  explicit Cluster(std::span<const NodeBlock> blocks, NodeIndex node_offset = 0);

  [[nodiscard]] std::uint32_t nodes() const noexcept { return nodes_; }
  /// GPUs of the largest node (every node's count on a uniform fleet).
  [[nodiscard]] std::uint32_t gpus_per_node() const noexcept { return gpus_per_node_; }
  /// GPUs of node n.
  [[nodiscard]] std::uint32_t gpus_on(NodeIndex n) const noexcept {
    return first_gpu_[n + 1] - first_gpu_[n];
  }
  /// Global index of node n's first GPU.
  [[nodiscard]] GpuIndex first_gpu(NodeIndex n) const noexcept { return first_gpu_[n]; }
  [[nodiscard]] std::uint32_t gpus() const noexcept { return static_cast<std::uint32_t>(owner_.size()); }
  [[nodiscard]] NodeIndex node_of(GpuIndex g) const noexcept { return node_of_gpu_[g]; }
  /// Fleet index of this cluster's node 0 (0 unless it is one node group's view).
  [[nodiscard]] NodeIndex node_offset() const noexcept { return node_offset_; }
  /// Whether every node holds the same number of GPUs.
  [[nodiscard]] bool uniform() const noexcept { return uniform_; }

  [[nodiscard]] std::uint32_t free_gpus() const noexcept { return free_total_; }
  [[nodiscard]] std::uint32_t free_gpus(NodeIndex n) const noexcept { return free_per_node_[n]; }
  [[nodiscard]] JobIndex owner(GpuIndex g) const noexcept { return owner_[g]; }
  /// Lowest-numbered node with at least k free GPUs, or nodes() if none.
  [[nodiscard]] NodeIndex first_node_with_free(std::uint32_t k) const;
  /// Nodes with exactly k free GPUs, ascending.
  [[nodiscard]] const NodeSet& nodes_with_free(std::uint32_t k) const { return nodes_by_free_[k]; }
  /// Free GPUs of a node, ascending.
  [[nodiscard]] std::vector<GpuIndex> free_gpus_of(NodeIndex n) const;
  /// Appends the first `k` free GPUs of node n (ascending; fewer when it has fewer) to `out`: a placement
  /// built in place, without a list of the node's free GPUs per node taken.
  void append_free_gpus(NodeIndex n, std::uint32_t k, std::vector<GpuIndex>& out) const;

  /// Gives the GPUs to `job`; throws InvariantError if any is taken (a double booking is a bug).
  void allocate(JobIndex job, std::span<const GpuIndex> gpus);
  /// Frees the GPUs of `job`; throws InvariantError if one is not held by it.
  void release(JobIndex job, std::span<const GpuIndex> gpus);

 private:
  /// Node n has `count` free GPUs from now on: its bucket, its count and the total follow.
  void set_free(NodeIndex n, std::uint32_t count);

  std::uint32_t nodes_ = 0, gpus_per_node_ = 0;
  NodeIndex node_offset_ = 0;
  bool uniform_ = true;
  std::vector<GpuIndex> first_gpu_;     ///< [n] = first GPU of node n; [nodes] = gpus()
  std::vector<NodeIndex> node_of_gpu_;  ///< O(1) node lookup for any layout
  std::vector<JobIndex> owner_;
  std::vector<std::uint32_t> free_per_node_;
  std::uint32_t free_total_ = 0;
  std::vector<NodeSet> nodes_by_free_;  ///< [k] = nodes with exactly k free GPUs
};

}  // namespace fleetwatt::sim
