// Jobs on the interconnect: epoch splits, checkpoints and class metadata defaults.
#include "fleetwatt/sim/network_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace fleetwatt::sim {

workloads::ModelMetadata network_metadata(const workloads::JobSpec& spec) {
  workloads::ModelMetadata m = spec.meta;
  // The table predictor's built-in classes are the A800 measurements at batch 256 with 64 workers.
  const auto fill = [&](const char* model, double params, std::uint32_t input) {
    if (m.model.empty()) m.model = model;
    if (m.params == 0.0) m.params = params;
    if (m.input_size == 0) m.input_size = input;
    if (m.batch_size == 0) m.batch_size = 256;
    if (m.workers == 0) m.workers = 64;
    if (m.dataset_samples == 0.0) m.dataset_samples = 100000;
  };
  if (spec.job_class == "vit") fill("vit-b16", 86.6e6, 224);
  if (spec.job_class == "bert") fill("bert-base", 110e6, 512);
  return m;
}

NetworkModel::NetworkModel(topologies::TopologyConfig config, std::uint32_t nodes,
                           std::uint32_t gpus_per_node, double gpu_idle_W)
    : gpu_idle_W_(gpu_idle_W) {
  auto topo = topologies::build_topology(config, nodes, gpus_per_node);
  net_ = std::make_unique<topologies::FleetNetwork>(std::move(topo), std::move(config));
}

NetworkModel::~NetworkModel() = default;

void NetworkModel::job_started(JobIndex j, const Job& job) {
  if (running_.size() <= j) running_.resize(j + 1);
  auto& r = running_[j];
  if (r.active) throw std::logic_error("job started twice on the network");
  r.base = job.profile;
  r.idle_W = job.group != kNoGroup ? job.gpu_idle_W : gpu_idle_W_;
  r.handle = net_->add_job(job.gpus, network_metadata(job.spec), job.profile.peak_s);
  r.active = true;
}

EpochSplit NetworkModel::next_epoch(JobIndex j) {
  auto& r = running_.at(j);
  const auto cost = net_->epoch_cost(r.handle);
  const auto& t = net_->config().training;
  EpochSplit s;
  s.compute_s = r.base.peak_s;
  s.compute_W = r.base.peak_W;
  s.comm_s = cost.comm_exposed_s;
  // Waiting on a collective, the GPU runs NCCL kernels but little else: between idle and compute power.
  s.comm_W = r.idle_W + t.comm_power_fraction * std::max(0.0, r.base.peak_W - r.idle_W);
  s.io_s = cost.io_exposed_s;
  s.io_W = r.base.valley_W;  // starved of data, the GPU sits near its valley level
  r.split = s;
  return s;
}

double NetworkModel::begin_checkpoint(JobIndex j) {
  auto& r = running_.at(j);
  r.checkpoint_s = net_->begin_checkpoint(r.handle);
  return r.checkpoint_s;
}

void NetworkModel::end_checkpoint(JobIndex j) {
  const auto& r = running_.at(j);
  if (!r.paused) net_->end_checkpoint(r.handle);
}

void NetworkModel::job_finished(JobIndex j) {
  auto& r = running_.at(j);
  if (!r.active) return;
  if (!r.paused) net_->remove_job(r.handle);
  r.active = false;
  r.paused = false;
}

void NetworkModel::job_paused(JobIndex j) {
  auto& r = running_.at(j);
  if (!r.active || r.paused) return;
  net_->remove_job(r.handle);
  r.paused = true;
}

void NetworkModel::job_resumed(JobIndex j, const Job& job) {
  auto& r = running_.at(j);
  if (!r.active || !r.paused) return;
  r.handle = net_->add_job(job.gpus, network_metadata(job.spec), r.base.peak_s);
  r.paused = false;
}

const workloads::PhaseProfile& NetworkModel::base_profile(JobIndex j) const {
  return running_.at(j).base;
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
