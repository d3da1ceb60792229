// Jobs on the interconnect: re-timed comm and io parts, checkpoints.
#include "fleetwatt/sim/network_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace fleetwatt::sim {

NetworkModel::NetworkModel(topologies::TopologyConfig config, std::uint32_t nodes,
                           std::uint32_t gpus_per_node, double gpu_idle_W)
    : gpu_idle_W_(gpu_idle_W) {
  auto topo = topologies::build_topology(config, nodes, gpus_per_node);
  net_ = std::make_unique<topologies::FleetNetwork>(std::move(topo), std::move(config));
}

NetworkModel::~NetworkModel() = default;

void NetworkModel::job_started(JobIndex j, const Job& job) {
  auto& r = running_[j];
  if (r.active) throw std::logic_error("job started twice on the network");
  r.base = job.plan;
  r.idle_W = job.group != kNoGroup ? job.gpu_idle_W : gpu_idle_W_;
  r.handle = net_->add_job(job.gpus, r.base.model, r.base[workloads::PartKind::compute].s);
  r.active = true;
}

PeakSplit NetworkModel::next_epoch(JobIndex j) {
  using workloads::PartKind;
  auto& r = running_.at(j);
  const auto cost = net_->epoch_cost(r.handle);
  const auto& t = net_->config().training;
  PeakSplit s;
  s.compute_s = r.base[PartKind::compute].s;
  s.compute_W = r.base[PartKind::compute].W;
  s.comm_s = cost.comm_exposed_s;
  // Waiting on a collective, the GPU runs NCCL kernels but little else: between idle and compute power.
  s.comm_W = r.idle_W + t.comm_power_fraction * std::max(0.0, s.compute_W - r.idle_W);
  s.io_s = cost.io_exposed_s;
  s.io_W = r.base[PartKind::checkpoint].W;  // starved of data, the GPU sits near its valley level
  s.bubble_s = r.base.bubble.s;             // the pipeline's fill and drain: not network time
  s.bubble_W = r.base.bubble.W;
  return s;
}

double NetworkModel::begin_checkpoint(JobIndex j) {
  return net_->begin_checkpoint(running_.at(j).handle);
}

void NetworkModel::end_checkpoint(JobIndex j) {
  const auto it = running_.find(j);
  if (it != running_.end() && !it->second.paused) net_->end_checkpoint(it->second.handle);
}

void NetworkModel::job_finished(JobIndex j) {
  // Dropped, not kept inactive: the model's memory follows the running jobs, not all jobs of the run.
  const auto it = running_.find(j);
  if (it == running_.end()) return;
  if (!it->second.paused) net_->remove_job(it->second.handle);
  running_.erase(it);
}

void NetworkModel::job_paused(JobIndex j) {
  const auto it = running_.find(j);
  if (it == running_.end()) return;
  auto& r = it->second;
  if (!r.active || r.paused) return;
  net_->remove_job(r.handle);
  r.paused = true;
}

void NetworkModel::job_resumed(JobIndex j, const Job& job) {
  const auto it = running_.find(j);
  if (it == running_.end()) return;
  auto& r = it->second;
  if (!r.active || !r.paused) return;
  r.handle = net_->add_job(job.gpus, r.base.model, r.base[workloads::PartKind::compute].s);
  r.paused = false;
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
