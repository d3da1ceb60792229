// Jobs on the interconnect: re-timed comm and io parts, checkpoints.
#include "fleetwatt/sim/fleet/network_model.hpp"

#include <algorithm>
#include <stdexcept>

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/models/training/step_comm.hpp"

namespace fleetwatt::sim {

NetworkModel::NetworkModel(topologies::TopologyConfig config, std::uint32_t nodes,
                           std::uint32_t gpus_per_node, double gpu_idle_W)
    : gpu_idle_W_(gpu_idle_W) {
  auto topo = topologies::build_topology(config, nodes, gpus_per_node);
  net_ = std::make_unique<topologies::FleetNetwork>(std::move(topo), std::move(config));
}

NetworkModel::~NetworkModel() = default;

void NetworkModel::job_started(Job& job) {
  auto& h = job.network;
  FLEETWATT_ASSERT(!h.active, "job started twice on the network");
  attach(job);
  h.active = true;
}

void NetworkModel::attach(Job& job) {
  job.network.handle = net_->add_job(job.gpus, job.plan);
  job.network.paused = false;
}

PeakSplit NetworkModel::next_epoch(const Job& job) {
  using jobs::PartKind;
  FLEETWATT_ASSERT(job.network.active && !job.network.paused, "epoch of a job not on the network");
  const auto cost = net_->epoch_cost(job.network.handle);
  const auto& t = net_->config().training;
  // The plan as the job started (job.plan does not change while it runs), re-timed.
  const auto& base = job.plan;
  const double idle_W = job.gpu_type.group != kNoGroup ? job.gpu_type.idle_W : gpu_idle_W_;
  PeakSplit s;
  s.compute_s = base[PartKind::compute].s;
  s.compute_W = base[PartKind::compute].W;
  s.comm_s = cost.comm_exposed_s;
  if (cost.step_plan && base.traffic) {
    // A step-level plan: the fabric re-timed its data-parallel rings and its pipeline and context sends;
    // the tensor-parallel collectives (inside NVLink) keep the plan's time. The overlap rules are the
    // predictor's own (models/training/step_comm.hpp), so an uncongested fabric gives the predicted step.
    using jobs::CommGroup;
    const double steps = base.steps;
    const auto& t = *base.traffic;
    auto& g = s.comm_by_group;
    g[static_cast<std::size_t>(CommGroup::tp)] = base.comm_by_group[static_cast<std::size_t>(CommGroup::tp)];
    g[static_cast<std::size_t>(CommGroup::cp)] = steps * models::exposed_cp_seconds(t, cost.cp_step_s);
    g[static_cast<std::size_t>(CommGroup::pp)] = steps * cost.pp_step_s;
    g[static_cast<std::size_t>(CommGroup::dp)] = steps * models::exposed_dp_seconds(t, cost.dp_step_s);
    s.comm_s = 0.0;
    for (const double x : g) s.comm_s += x;
  }
  // Waiting on a collective, the GPU runs NCCL kernels but little else: between idle and compute power.
  s.comm_W = idle_W + t.comm_power_fraction * std::max(0.0, s.compute_W - idle_W);
  s.io_s = cost.io_exposed_s;
  s.io_W = base[PartKind::checkpoint].W;  // starved of data, the GPU sits near its valley level
  s.bubble_s = base.bubble.s;             // the pipeline's fill and drain: not network time
  s.bubble_W = base.bubble.W;
  return s;
}

double NetworkModel::begin_checkpoint(const Job& job) {
  FLEETWATT_ASSERT(job.network.active && !job.network.paused, "checkpoint of a job not on the network");
  return net_->begin_checkpoint(job.network.handle);
}

void NetworkModel::end_checkpoint(const Job& job) {
  if (job.network.active && !job.network.paused) net_->end_checkpoint(job.network.handle);
}

void NetworkModel::job_finished(Job& job) {
  auto& h = job.network;
  if (!h.active) return;
  if (!h.paused) net_->remove_job(h.handle);
  h = NetworkHold{};
}

void NetworkModel::job_paused(Job& job) {
  auto& h = job.network;
  if (!h.active || h.paused) return;
  net_->remove_job(h.handle);
  h.paused = true;
}

void NetworkModel::job_resumed(Job& job) {
  auto& h = job.network;
  if (!h.active || !h.paused) return;
  attach(job);
}

std::vector<std::uint32_t> NetworkModel::racks() const {
  const auto& topo = net_->topology();
  std::vector<std::uint32_t> out(topo.nodes());
  for (std::uint32_t n = 0; n < out.size(); ++n) {
    const auto r = topo.rack_of_node(n);
    out[n] = r >= 0 ? static_cast<std::uint32_t>(r) : n;
  }
  return out;
}

}  // namespace fleetwatt::sim
