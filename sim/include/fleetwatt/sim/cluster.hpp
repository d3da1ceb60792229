// Which GPU belongs to which job. GPUs are numbered globally, node-major (gpu = node * gpus_per_node +
// local index); allocation is in whole GPUs and is checked so that no GPU is ever double-booked.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <vector>

namespace fleetwatt::sim {

using GpuIndex = std::uint32_t;
using NodeIndex = std::uint32_t;
using JobIndex = std::uint32_t;
inline constexpr JobIndex kNoJob = ~JobIndex{0};

/// The GPUs a job runs on, sorted ascending.
using Placement = std::vector<GpuIndex>;

class Cluster {
 public:
  Cluster(std::uint32_t nodes, std::uint32_t gpus_per_node);

  [[nodiscard]] std::uint32_t nodes() const noexcept { return nodes_; }
  [[nodiscard]] std::uint32_t gpus_per_node() const noexcept { return gpus_per_node_; }
  [[nodiscard]] std::uint32_t gpus() const noexcept { return nodes_ * gpus_per_node_; }
  [[nodiscard]] NodeIndex node_of(GpuIndex g) const noexcept { return g / gpus_per_node_; }

  [[nodiscard]] std::uint32_t free_gpus() const noexcept { return free_total_; }
  [[nodiscard]] std::uint32_t free_gpus(NodeIndex n) const noexcept { return free_per_node_[n]; }
  [[nodiscard]] JobIndex owner(GpuIndex g) const noexcept { return owner_[g]; }
  /// Lowest-numbered node with at least k free GPUs, or nodes() if none.
  [[nodiscard]] NodeIndex first_node_with_free(std::uint32_t k) const;
  /// Nodes with exactly k free GPUs, ascending.
  [[nodiscard]] const std::set<NodeIndex>& nodes_with_free(std::uint32_t k) const {
    return nodes_by_free_[k];
  }
  /// Free GPUs of a node, ascending.
  [[nodiscard]] std::vector<GpuIndex> free_gpus_of(NodeIndex n) const;

  /// Gives the GPUs to `job`; throws std::logic_error if any is taken (a double booking is a bug).
  void allocate(JobIndex job, std::span<const GpuIndex> gpus);
  /// Frees the GPUs of `job`; throws std::logic_error if one is not held by it.
  void release(JobIndex job, std::span<const GpuIndex> gpus);

 private:
  void move_bucket(NodeIndex n, std::uint32_t from, std::uint32_t to);

  std::uint32_t nodes_, gpus_per_node_;
  std::vector<JobIndex> owner_;
  std::vector<std::uint32_t> free_per_node_;
  std::uint32_t free_total_;
  std::vector<std::set<NodeIndex>> nodes_by_free_;  ///< [k] = nodes with exactly k free GPUs
};

}  // namespace fleetwatt::sim
