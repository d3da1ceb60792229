// Node groups, GPU types and a job's run per type for heterogeneous fleets.
#include "fleetwatt/sim/fleet/fleet_layout.hpp"

#include "fleetwatt/jobs/job_classes.hpp"

#include <fmt/format.h>
#include <stdexcept>

#include "fleetwatt/jobs/job_inference.hpp"

namespace fleetwatt::sim {

void check_gpu_count(const core::SourceLocation& origin, std::string_view who, std::uint64_t n_gpus,
                     std::uint64_t holder_gpus, std::string_view holder) {
  if (n_gpus == 0) throw core::ConfigError(origin, "n_gpus", fmt::format("{} asks for no GPUs", who));
  if (n_gpus > holder_gpus)
    throw core::ConfigError(
        origin, "n_gpus", fmt::format("{} asks for {} GPUs but {} has {}", who, n_gpus, holder, holder_gpus));
}

void check_gpu_count(const core::SourceLocation& origin, std::int64_t id, std::uint64_t n_gpus,
                     std::uint64_t holder_gpus, std::string_view holder) {
  if (n_gpus == 0 || n_gpus > holder_gpus)
    check_gpu_count(origin, fmt::format("job {}", id), n_gpus, holder_gpus, holder);
}

FleetLayout::FleetLayout(std::vector<FleetGroup> groups) : groups_(std::move(groups)) {
  if (groups_.empty()) throw std::invalid_argument("a fleet needs at least one node group");
  NodeIndex node = 0;
  GpuIndex gpu = 0;
  for (std::uint32_t g = 0; g < groups_.size(); ++g) {
    const auto& grp = groups_[g];
    if (grp.nodes == 0 || grp.gpus_per_node == 0)
      throw std::invalid_argument("a node group needs nodes and GPUs");
    first_node_.push_back(node);
    first_gpu_.push_back(gpu);
    group_of_node_.insert(group_of_node_.end(), grp.nodes, g);
    node += grp.nodes;
    gpu += gpus(g);
    largest_ = std::max(largest_, gpus(g));
    std::uint32_t type = 0;
    while (type < types_.size() && !(types_[type].id == grp.gpu.id && types_[type].idle_W == grp.gpu.idle_W &&
                                     types_[type].tdp_W == grp.gpu.tdp_W))
      ++type;
    if (type == types_.size()) types_.push_back(grp.gpu);
    type_of_group_.push_back(type);
  }
}

std::vector<NodeBlock> FleetLayout::blocks() const {
  std::vector<NodeBlock> out;
  for (const auto& g : groups_) out.push_back({g.nodes, g.gpus_per_node});
  return out;
}

double FleetLayout::idle_it_W() const {
  double w = 0.0;
  for (const auto& g : groups_)
    w += g.nodes * g.node_base_W + static_cast<double>(g.nodes * g.gpus_per_node) * g.gpu.idle_W;
  return w;
}

std::string FleetLayout::describe(std::uint32_t g) const {
  const auto& grp = groups_[g];
  return fmt::format("{}: {} nodes x {} {} (idle {:g} W/GPU, node base {:g} W)", grp.name, grp.nodes,
                     grp.gpus_per_node, grp.gpu.id, grp.gpu.idle_W, grp.node_base_W);
}

jobs::EpochPlan plan_job(const jobs::JobSpec& spec, const models::GpuHardware& gpu,
                         const models::PowerPredictor& predictor) {
  // Explicit phases hold on every type, whatever the predictor; their traffic comes from the job's (or its
  // class's) metadata.
  if (spec.phases) return jobs::EpochPlan::from_profile(*spec.phases, jobs::with_class_defaults(spec));
  return predictor.plan(spec, gpu);
}

TypedRun run_on_type(const jobs::JobSpec& spec, const models::GpuHardware& gpu,
                     const models::PowerPredictor& predictor) {
  if (spec.phases || !spec.matched_runtime_s)
    return {plan_job(spec, gpu, predictor), spec.epochs, spec.meta.dataset_samples};
  static const jobs::InferenceConfig inference{};
  jobs::JobSpec copy = spec;
  (void)jobs::match_runtime(
      copy, *spec.matched_runtime_s,
      [&](const jobs::JobSpec& j) { return predictor.predict(j, gpu).epoch_s() * j.epochs; }, inference);
  return {predictor.plan(copy, gpu), copy.epochs, copy.meta.dataset_samples};
}

}  // namespace fleetwatt::sim
