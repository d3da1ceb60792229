// The engine's bridge to topologies::FleetNetwork: running jobs register their gradient and data-loading
// flows (from the metadata their predictor resolved: the plan's model); at each epoch boundary the network
// re-times the plan's comm and io parts from the job's placement and the current shares (compute is never
// touched); each checkpoint part lasts at least the checkpoint write; the network draws power. The engine
// calls it only when the scenario has a [topology] section.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/sim/fleet/cluster.hpp"
#include "fleetwatt/sim/fleet/job.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"
#include "fleetwatt/topologies/flows/fleet_network.hpp"

namespace fleetwatt::sim {

class NetworkModel {
 public:
  /// Builds the fleet's topology (`nodes` x `gpus_per_node`); `gpu_idle_W` sets the floor of the
  /// communication power level. Throws ConfigError for a bad topology.
  NetworkModel(topologies::TopologyConfig config, std::uint32_t nodes, std::uint32_t gpus_per_node,
               double gpu_idle_W);
  ~NetworkModel();

  // Each call takes the job itself: its flows' handle lives in job.network (no lookup per epoch).

  /// A job starts on its GPUs with its predicted (network-free) plan, job.plan.
  void job_started(Job& job);
  /// The job's next peak phase: the plan's compute, communication and I/O re-timed at the current shares.
  [[nodiscard]] PeakSplit next_epoch(const Job& job);
  /// Starts the job's checkpoint write; returns its duration (0 when nothing is written).
  double begin_checkpoint(const Job& job);
  void end_checkpoint(const Job& job);
  void job_finished(Job& job);
  /// A paused job's flows (all-reduce, reads, a checkpoint write in progress) leave the network.
  void job_paused(Job& job);
  /// They return when it resumes (a checkpoint cut by the pause is not written again).
  void job_resumed(Job& job);

  /// Network power now (switches, NICs, storage servers, links).
  [[nodiscard]] double power_W() const noexcept { return net_->power_W(); }
  /// Rack of every node, for topology-aware placement.
  [[nodiscard]] std::vector<std::uint32_t> racks() const;
  [[nodiscard]] const topologies::FleetNetwork& network() const noexcept { return *net_; }

 private:
  /// Puts the job's flows on the fabric, on its GPUs now (at its start and when it resumes).
  void attach(Job& job);

  std::unique_ptr<topologies::FleetNetwork> net_;
  double gpu_idle_W_;
};

}  // namespace fleetwatt::sim
