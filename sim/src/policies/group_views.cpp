// Node groups' views of the cluster: placement within one group, allocations kept in step.
#include "fleetwatt/sim/policies/group_views.hpp"

namespace fleetwatt::sim {

GroupViews::GroupViews(const FleetLayout& layout, Cluster& fleet) : layout_(layout), fleet_(fleet) {
  const auto& groups = layout_.groups();
  if (groups.size() < 2) return;
  for (std::uint32_t g = 0; g < groups.size(); ++g) {
    const NodeBlock block{groups[g].nodes, groups[g].gpus_per_node};
    views_.emplace_back(std::span<const NodeBlock>(&block, 1), layout_.first_node(g));
  }
}

std::optional<Placement> GroupViews::place(const PlacementPolicy& policy, std::uint32_t n_gpus,
                                           const std::function<bool(std::uint32_t type)>& runs_on) const {
  for (std::uint32_t g = 0; g < views_.size(); ++g) {
    if (n_gpus > views_[g].free_gpus()) continue;
    if (!runs_on(layout_.type_of_group(g))) continue;
    auto p = policy.place(views_[g], n_gpus);
    if (!p) continue;
    for (auto& gpu : *p) gpu += layout_.first_gpu(g);
    return p;
  }
  return std::nullopt;
}

std::pair<std::uint32_t, std::vector<GpuIndex>> GroupViews::local(std::span<const GpuIndex> gpus) const {
  const std::uint32_t g = layout_.group_of_node(fleet_.node_of(gpus.front()));
  std::vector<GpuIndex> out(gpus.begin(), gpus.end());
  for (auto& gpu : out) gpu -= layout_.first_gpu(g);
  return {g, std::move(out)};
}

void GroupViews::allocate(JobIndex owner, std::span<const GpuIndex> gpus) {
  fleet_.allocate(owner, gpus);
  if (views_.empty() || gpus.empty()) return;
  const auto [g, in_group] = local(gpus);
  views_[g].allocate(owner, in_group);
}

void GroupViews::release(JobIndex owner, std::span<const GpuIndex> gpus) {
  fleet_.release(owner, gpus);
  if (views_.empty() || gpus.empty()) return;
  const auto [g, in_group] = local(gpus);
  views_[g].release(owner, in_group);
}

}  // namespace fleetwatt::sim
