// The fleet as groups of identical nodes ([[fleet.group]]). Groups are laid out in scenario order: group 0's
// nodes come first, node-major GPU numbering runs through them all. Groups whose GPUs share a preset id and
// the same idle and TDP figures are one GPU type; a job runs on one group, hence on one type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/predictors/power_predictor.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"

namespace fleetwatt::sim {

/// The one statement of how many GPUs a job may ask for: at least one, and no more than `holder_gpus`,
/// what `holder` has (the fleet; its largest node group, a job running within one group; the largest
/// group of a GPU type the job can run on). Otherwise throws the ConfigError at `origin`, key n_gpus,
/// naming `who` ("job 7", "mix entry"). The loader checks what the scenario lists before the run, the
/// engine what it draws from a generator or trace; both through this.
void check_gpu_count(const core::SourceLocation& origin, std::string_view who, std::uint64_t n_gpus,
                     std::uint64_t holder_gpus, std::string_view holder);
/// The same for job `id` ("job 7"), its name written only when it fails: every drawn job is checked.
void check_gpu_count(const core::SourceLocation& origin, std::int64_t id, std::uint64_t n_gpus,
                     std::uint64_t holder_gpus, std::string_view holder);

/// One group of identical nodes.
struct FleetGroup {
  std::string name;  ///< the scenario's name, else "group<k>"
  std::uint32_t nodes = 1;
  std::uint32_t gpus_per_node = 1;
  models::GpuHardware gpu;  ///< preset with the scenario's overrides
  double node_base_W = 0.0;
};

class FleetLayout {
 public:
  /// At least one group, each with nodes and GPUs; throws std::invalid_argument otherwise.
  explicit FleetLayout(std::vector<FleetGroup> groups);

  [[nodiscard]] const std::vector<FleetGroup>& groups() const noexcept { return groups_; }
  [[nodiscard]] std::uint32_t group_of_node(NodeIndex n) const { return group_of_node_[n]; }
  [[nodiscard]] NodeIndex first_node(std::uint32_t g) const { return first_node_[g]; }
  [[nodiscard]] GpuIndex first_gpu(std::uint32_t g) const { return first_gpu_[g]; }
  [[nodiscard]] std::uint32_t gpus(std::uint32_t g) const {
    return groups_[g].nodes * groups_[g].gpus_per_node;
  }
  /// GPUs of the largest group: the most one job can get.
  [[nodiscard]] std::uint32_t largest_group_gpus() const noexcept { return largest_; }
  /// Distinct GPU types in order of first appearance (type 0 is group 0's: the reference type).
  [[nodiscard]] const std::vector<models::GpuHardware>& types() const noexcept { return types_; }
  [[nodiscard]] std::uint32_t type_of_group(std::uint32_t g) const { return type_of_group_[g]; }
  [[nodiscard]] std::vector<NodeBlock> blocks() const;
  /// IT power of the whole fleet with every node on and every GPU idle, W.
  [[nodiscard]] double idle_it_W() const;
  /// "G2: 549 nodes x 8 a800 (idle 62 W/GPU, node base 400 W)".
  [[nodiscard]] std::string describe(std::uint32_t g) const;

 private:
  std::vector<FleetGroup> groups_;
  std::vector<std::uint32_t> group_of_node_;
  std::vector<NodeIndex> first_node_;
  std::vector<GpuIndex> first_gpu_;
  std::vector<models::GpuHardware> types_;
  std::vector<std::uint32_t> type_of_group_;
  std::uint32_t largest_ = 0;
};

/// A job's run on one GPU type: its per-GPU phases and its epoch count and dataset size there.
struct TypedRun {
  jobs::EpochPlan plan;
  std::uint32_t epochs = 1;
  double dataset_samples = 0.0;
};

/// The job's epoch plan on `gpu`: its explicit phases (compute peak, checkpoint valley), else the
/// predictor's plan.
[[nodiscard]] jobs::EpochPlan plan_job(const jobs::JobSpec& spec, const models::GpuHardware& gpu,
                                       const models::PowerPredictor& predictor);

/// The job on `gpu`: explicit phases as given (they hold on every type), else the predictor's. A job whose
/// epochs were chosen to match a recorded run time (JobSpec::matched_runtime_s) is matched again on this
/// type (jobs::match_runtime), so it runs that long on whichever type it gets.
[[nodiscard]] TypedRun run_on_type(const jobs::JobSpec& spec, const models::GpuHardware& gpu,
                                   const models::PowerPredictor& predictor);

}  // namespace fleetwatt::sim
