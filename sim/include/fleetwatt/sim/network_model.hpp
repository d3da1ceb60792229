// The engine's bridge to topologies::FleetNetwork: running jobs register their gradient and data-loading
// flows; at each epoch boundary a job's peak phase becomes compute + exposed communication + exposed I/O,
// each at its own GPU power level; each valley is at least the checkpoint write; the network draws power.
// The engine calls it only when the scenario has a [topology] section.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fleetwatt/sim/cluster.hpp"
#include "fleetwatt/sim/job.hpp"
#include "fleetwatt/topologies/fleet_network.hpp"
#include "fleetwatt/topologies/topology_config.hpp"
#include "fleetwatt/workloads/job_spec.hpp"

namespace fleetwatt::sim {

/// One epoch's peak phase split into its parts (per GPU).
struct EpochSplit {
  double compute_s = 0.0, comm_s = 0.0, io_s = 0.0;  ///< exposed communication and I/O only
  double compute_W = 0.0, comm_W = 0.0, io_W = 0.0;
  [[nodiscard]] double duration_s() const noexcept { return compute_s + comm_s + io_s; }
  /// Time-weighted power of the whole peak phase.
  [[nodiscard]] double mean_W() const noexcept {
    const double t = duration_s();
    return t > 0.0 ? (compute_W * compute_s + comm_W * comm_s + io_W * io_s) / t : compute_W;
  }
};

class NetworkModel {
 public:
  /// Builds the fleet's topology (`nodes` x `gpus_per_node`); `gpu_idle_W` sets the floor of the
  /// communication power level. Throws ConfigError for a bad topology.
  NetworkModel(topologies::TopologyConfig config, std::uint32_t nodes, std::uint32_t gpus_per_node,
               double gpu_idle_W);
  ~NetworkModel();

  /// A job starts on its GPUs; `base` is its predicted (network-free) profile.
  void job_started(JobIndex j, const Job& job);
  /// The split of the job's next peak phase at the current shares.
  [[nodiscard]] EpochSplit next_epoch(JobIndex j);
  /// The split last returned by next_epoch for this job.
  [[nodiscard]] const EpochSplit& last_split(JobIndex j) const { return running_.at(j).split; }
  /// Duration of the job's last checkpoint write.
  [[nodiscard]] double last_checkpoint_s(JobIndex j) const { return running_.at(j).checkpoint_s; }
  /// Starts the job's checkpoint write; returns its duration (0 when nothing is written).
  double begin_checkpoint(JobIndex j);
  void end_checkpoint(JobIndex j);
  void job_finished(JobIndex j);
  /// A paused job's flows (all-reduce, reads, a checkpoint write in progress) leave the network.
  void job_paused(JobIndex j);
  /// They return when it resumes (a checkpoint cut by the pause is not written again).
  void job_resumed(JobIndex j, const Job& job);
  /// The job's base (predicted) profile, as given at start.
  [[nodiscard]] const workloads::PhaseProfile& base_profile(JobIndex j) const;

  /// Network power now (switches, NICs, storage servers, links).
  [[nodiscard]] double power_W() const noexcept { return net_->power_W(); }
  /// Rack of every node, for topology-aware placement.
  [[nodiscard]] std::vector<std::uint32_t> racks() const;
  [[nodiscard]] const topologies::FleetNetwork& network() const noexcept { return *net_; }

 private:
  struct Running {
    topologies::NetJob handle = 0;
    workloads::PhaseProfile base;
    double idle_W = 0.0;  ///< idle power of the job's GPUs (its node group's type)
    EpochSplit split;
    double checkpoint_s = 0.0;
    bool active = false;
    bool paused = false;  ///< flows removed while the job is suspended
  };
  std::unique_ptr<topologies::FleetNetwork> net_;
  double gpu_idle_W_;
  std::vector<Running> running_;  ///< by JobIndex
};

/// Metadata a job needs for the network model, filled where the job leaves it out: the built-in table
/// classes are the published A800 runs (ViT-B/16: 86.6 M parameters, 224 px images; BERT-base: 110 M
/// parameters, 512-token sequences; batch 256, 64 workers); other jobs keep what they have.
[[nodiscard]] workloads::ModelMetadata network_metadata(const workloads::JobSpec& spec);

}  // namespace fleetwatt::sim
