// The network as the simulator sees it: jobs placed on GPUs register their gradient all-reduce flows on the
// fabric and their data-loading flows on shared storage; the epoch cost of a job (compute, exposed
// communication, exposed I/O) follows from its current max-min fair rates, and the network's power from
// which links and NICs carry flows. Rates change only when a job starts or ends or a checkpoint begins or
// finishes; the simulator asks for a job's cost at each epoch boundary.
//
// Storage is a pool (the servers' total bandwidth) shared max-min among reading nodes, each node capped by
// its NICs and by its data-loader workers; checkpoint writers share it max-min too, each capped by its NICs.
// Storage traffic is kept off the gradient fabric, as on systems with a separate storage network (NVIDIA's
// SuperPOD reference designs, for one). Storage traffic is kept off the gradient fabric, as on systems
// with a separate storage network (NVIDIA's SuperPOD reference designs, for one).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "fleetwatt/jobs/job_spec.hpp"
#include "fleetwatt/models/training/training_io.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"
#include "fleetwatt/topologies/flows/collectives.hpp"
#include "fleetwatt/topologies/flows/flow_network.hpp"
#include "fleetwatt/topologies/flows/shared_pool.hpp"
#include "fleetwatt/topologies/graph/routing.hpp"
#include "fleetwatt/topologies/graph/topology.hpp"

namespace fleetwatt::topologies {

using NetJob = std::uint32_t;

/// A job's cost per epoch under the current shares.
struct EpochCost {
  std::uint64_t steps = 1;
  double compute_s = 0.0;       ///< the predictor's compute time
  double comm_s = 0.0;          ///< all gradient communication of the epoch
  double comm_exposed_s = 0.0;  ///< the part not hidden behind backward compute
  double io_load_s = 0.0;       ///< data loading of the epoch
  double io_exposed_s = 0.0;    ///< the part not hidden behind compute
  double allreduce_s = 0.0;     ///< one step's all-reduce
  double read_share_Bps = 0.0;  ///< storage bandwidth the job gets
  /// A step-level plan's traffic per step at the current shares (docs/interconnect.md "3D-parallel jobs on a
  /// fabric"):
  /// its data-parallel rings (those inside NVLink domains at the plan's time), its pipeline sends and its
  /// context-parallel sends, before the overlap rules of models/training/step_comm.hpp; `step_plan` says they
  /// hold (then comm_s and comm_exposed_s are not used).
  bool step_plan = false;
  double dp_step_s = 0.0, pp_step_s = 0.0, cp_step_s = 0.0;
  /// compute + exposed communication + exposed I/O.
  [[nodiscard]] double epoch_s() const noexcept { return compute_s + comm_exposed_s + io_exposed_s; }
};

class FleetNetwork {
 public:
  FleetNetwork(Topology topology, TopologyConfig config);
  ~FleetNetwork();
  FleetNetwork(const FleetNetwork&) = delete;
  FleetNetwork& operator=(const FleetNetwork&) = delete;

  /// Registers a running job on GPUs `gpus` (global indices, node-major) with its predicted plan: a
  /// step-level plan's traffic (EpochPlan::traffic) goes on the fabric group by group, its ranks laid out
  /// over the GPUs in ascending order as its rank order says; an epoch-level plan's whole gradients ring
  /// over all its GPUs. Reads and checkpoints from the plan's model and checkpoint bytes. Returns a handle
  /// for the other calls.
  NetJob add_job(const std::vector<std::uint32_t>& gpus, const jobs::EpochPlan& plan);
  /// An epoch-level job known by its model and its epoch's compute time (a plan of that one part).
  NetJob add_job(const std::vector<std::uint32_t>& gpus, const jobs::ModelMetadata& meta,
                 double epoch_compute_s) {
    jobs::EpochPlan plan;
    plan.model = meta;
    plan[jobs::PartKind::compute].s = epoch_compute_s;
    return add_job(gpus, plan);
  }
  /// Removes a job (and its checkpoint, if one is in progress).
  void remove_job(NetJob job);
  /// Cost of the job's next epoch at the current shares.
  [[nodiscard]] EpochCost epoch_cost(NetJob job);
  /// Starts the job's checkpoint write and returns its duration at the current write share (0 if the job
  /// has nothing to write).
  double begin_checkpoint(NetJob job);
  /// Ends the job's checkpoint write.
  void end_checkpoint(NetJob job);

  /// Network power now: idle power of every switch, NIC, storage server and link, plus active power of
  /// the links and NICs that carry flows.
  [[nodiscard]] double power_W() const noexcept { return power_W_; }
  /// Power with nothing flowing.
  [[nodiscard]] double idle_power_W() const noexcept { return idle_W_; }

  [[nodiscard]] const Topology& topology() const noexcept { return topo_; }
  [[nodiscard]] const TopologyConfig& config() const noexcept { return config_; }
  [[nodiscard]] FlowNetwork& fabric() noexcept { return *fabric_; }
  [[nodiscard]] std::uint32_t node_of_gpu(std::uint32_t gpu) const;
  /// Total storage bandwidth (bytes/s) and one node's NIC bandwidth towards it.
  [[nodiscard]] double storage_Bps() const noexcept { return storage_Bps_; }
  [[nodiscard]] double node_nic_Bps(std::uint32_t node) const { return nic_[node].Bps; }

 private:
  struct JobState;
  void use_links(std::span<const DirectedLink> path, int delta);
  /// use_links for every route of a job's collective.
  void use_links(const PlacedCollective& collective, int delta);
  void use_nic(std::uint32_t node, int delta);
  void use_storage(int delta);
  /// use_nic and use_storage for each of these nodes (a checkpoint of a job that holds no read clients).
  void hold_nics(const std::vector<std::uint32_t>& nodes, int delta);

  /// add_job on a free slot: the job's state, flows and read clients.
  void fill_job(JobState& s, NetJob id, const std::vector<std::uint32_t>& gpus, const jobs::EpochPlan& plan);
  /// The step-level traffic of a job on its placement (add_job).
  void add_step_traffic(JobState& s, NetJob id, std::uint64_t key);
  /// Takes a job's flows and read clients off the network; its slot keeps its buffers for the next job.
  void release_job(JobState& s);

  Topology topo_;
  TopologyConfig config_;
  Router router_;
  /// Collectives (data-parallel rings) on one copy of the fabric's links, point-to-point sends (pipeline
  /// and context-parallel) on another: a job's reduction and its sends run at different moments of its
  /// step, so they do not share its links' bandwidth; each shares with the same kind of traffic of the
  /// other jobs. Change groups: 2 x job (+1 for the second collective of each plane).
  std::unique_ptr<FlowNetwork> fabric_;
  std::unique_ptr<FlowNetwork> sends_;  ///< built by sends() when a job first needs it
  [[nodiscard]] FlowNetwork& sends();
  /// Storage readers (one client per node of a job, capped by its workers' decode rate and its NICs) and
  /// checkpoint writers (capped by NICs). Jobs sharing a node do not share its NICs here: decoding, not
  /// the NIC, bounds loading in practice. A checkpoint's duration is fixed at its start.
  std::unique_ptr<SharedPool> reads_, writes_;
  std::vector<std::unique_ptr<JobState>> jobs_;
  // Scratch of add_job, reused so that a job's start allocates only what the job keeps: its ranks' vertices
  // and its nodes' NIC bandwidths, sorted and grouped.
  std::vector<Vertex> scratch_ranks_;
  std::vector<double> scratch_caps_;
  std::vector<std::pair<double, std::uint32_t>> scratch_groups_;
  /// What a checkpoint needs, by NetJob, in a dense array: a checkpoint per epoch of every job reaches it
  /// without touching the job's (cold, scattered) state in the usual case, one NIC bandwidth among its
  /// nodes and reads holding them.
  struct CheckpointState {
    double write_bytes = 0.0;  ///< each node's share of the checkpoint (0: nothing to write)
    double cap_Bps = 0.0;      ///< the one NIC bandwidth of its nodes, when `single`
    std::uint32_t nodes = 0;   ///< how many nodes write, when `single`
    std::uint32_t client = 0;  ///< its pool client while writing, when `single`
    bool single = false;       ///< one pool client and no NIC bookkeeping (else the JobState path)
    bool writing = false;
  };
  std::vector<CheckpointState> checkpoints_;
  /// A job's last epoch cost, by NetJob, and what it depended on: it holds while none of the job's flow
  /// rates changed and the read pool's level is the same (most epochs), so an epoch does not reach the
  /// job's state, its read clients and their caps (cache misses at tens of thousands of GPUs).
  struct EpochMemo {
    EpochCost cost;
    double read_level = 0.0;  ///< the read pool's level it was computed at
    bool valid = false;
    /// Its collectives' change groups: bit 0 and 1 on fabric_ (2 x job, 2 x job + 1), 2 and 3 on sends_.
    std::uint8_t groups = 0;
    bool reads = false;  ///< the job reads from storage
  };
  std::vector<EpochMemo> epoch_memo_;
  std::vector<NetJob> free_;
  std::vector<std::uint32_t> node_of_gpu_;
  /// Per node, together so that a job's nodes cost one cache line each per checkpoint: NIC bandwidth
  /// towards the network, NIC-side links, and the flows using its NICs now.
  struct NodeNics {
    double Bps = 0.0;
    std::uint32_t links = 0;
    std::uint32_t users = 0;
  };
  std::vector<NodeNics> nic_;
  double storage_Bps_ = 0.0;
  // Power bookkeeping: users per link / node NICs / storage, and the current total.
  /// What a collective's flow reads and writes per link of its route, in one record (one cache miss per
  /// link where three arrays cost three): users, the node whose NIC it touches, its power when in use.
  struct LinkUse {
    std::uint32_t users = 0;
    std::uint32_t nic_node = ~std::uint32_t{0};  ///< or ~0
    double active_extra_W = 0.0;                 ///< active minus idle power
  };
  std::vector<LinkUse> link_use_;
  std::uint32_t storage_users_ = 0;
  std::vector<std::uint32_t> storage_links_;
  double nic_active_W_ = 0.0;      ///< per node, all its NICs together
  double storage_active_W_ = 0.0;  ///< storage links' active minus idle power, together
  double idle_W_ = 0.0;
  double power_W_ = 0.0;
};

}  // namespace fleetwatt::topologies
