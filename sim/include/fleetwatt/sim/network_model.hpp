// The engine's bridge to topologies::FleetNetwork: running jobs register their gradient and data-loading
// flows (from the metadata their predictor resolved: the plan's model); at each epoch boundary the network
// re-times the plan's comm and io parts from the job's placement and the current shares (compute is never
// touched); each checkpoint part lasts at least the checkpoint write; the network draws power. The engine
// calls it only when the scenario has a [topology] section.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "fleetwatt/sim/cluster.hpp"
#include "fleetwatt/sim/job.hpp"
#include "fleetwatt/topologies/fleet_network.hpp"
#include "fleetwatt/topologies/topology_config.hpp"
#include "fleetwatt/workloads/job_spec.hpp"

namespace fleetwatt::sim {

class NetworkModel {
 public:
  /// Builds the fleet's topology (`nodes` x `gpus_per_node`); `gpu_idle_W` sets the floor of the
  /// communication power level. Throws ConfigError for a bad topology.
  NetworkModel(topologies::TopologyConfig config, std::uint32_t nodes, std::uint32_t gpus_per_node,
               double gpu_idle_W);
  ~NetworkModel();

  /// A job starts on its GPUs with its predicted (network-free) plan, job.plan.
  void job_started(JobIndex j, const Job& job);
  /// The job's next peak phase: the plan's compute, communication and I/O re-timed at the current shares.
  [[nodiscard]] PeakSplit next_epoch(JobIndex j);
  /// Starts the job's checkpoint write; returns its duration (0 when nothing is written).
  double begin_checkpoint(JobIndex j);
  void end_checkpoint(JobIndex j);
  void job_finished(JobIndex j);
  /// A paused job's flows (all-reduce, reads, a checkpoint write in progress) leave the network.
  void job_paused(JobIndex j);
  /// They return when it resumes (a checkpoint cut by the pause is not written again).
  void job_resumed(JobIndex j, const Job& job);

  /// Network power now (switches, NICs, storage servers, links).
  [[nodiscard]] double power_W() const noexcept { return net_->power_W(); }
  /// Rack of every node, for topology-aware placement.
  [[nodiscard]] std::vector<std::uint32_t> racks() const;
  [[nodiscard]] const topologies::FleetNetwork& network() const noexcept { return *net_; }

 private:
  struct Running {
    topologies::NetJob handle = 0;
    workloads::EpochPlan base;
    double idle_W = 0.0;  ///< idle power of the job's GPUs (its node group's type)
    bool active = false;
    bool paused = false;  ///< flows removed while the job is suspended
  };
  std::unique_ptr<topologies::FleetNetwork> net_;
  double gpu_idle_W_;
  std::unordered_map<JobIndex, Running> running_;  ///< the jobs on the network now, by JobIndex
};

}  // namespace fleetwatt::sim
