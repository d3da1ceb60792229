// Jobs' flows on the fabric and on storage, their epoch costs, and network power.
#include "fleetwatt/topologies/flows/fleet_network.hpp"

#include "fleetwatt/core/assert.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace fleetwatt::topologies {

namespace {
constexpr std::uint32_t kNone = ~std::uint32_t{0};
constexpr double kInf = std::numeric_limits<double>::infinity();
/// Global batch assumed when a job does not give one: 32 samples per GPU.
constexpr std::uint32_t kDefaultBatchPerGpu = 32;
}  // namespace

/// A job slot's state. Slots are reused as jobs come and go (NetJob ids are recycled), and with them the
/// capacity of every list and collective below: a job's start allocates nothing once the slot has held one
/// of its size.
struct FleetNetwork::JobState {
  bool live = false;
  // What every epoch and checkpoint reads comes first, in a few cache lines: at tens of thousands of GPUs
  // these objects are cold when a job's epoch ends, and the misses were most of a checkpoint's cost.
  std::vector<std::uint32_t> reads;  ///< per node: client ids in reads_
  /// While checkpointing (when checkpoints_ has not the single-client case): client ids in writes_, one per
  /// entry of write_groups.
  std::vector<std::uint32_t> writes;
  /// The job's nodes grouped by NIC bandwidth towards storage (ascending; infinity without a NIC), kept
  /// only when a checkpoint is not the single-client case: a checkpoint puts one pool client per group,
  /// standing for its count of nodes' writers (the level is the same as with a client per node).
  std::vector<std::pair<double, std::uint32_t>> write_groups;
  double compute_s = 0.0;
  std::uint64_t steps = 1;
  double sample_bytes = 0.0;
  double workers = 0.0;
  PlacedCollective allreduce;
  /// A step-level plan's traffic (its groups' rings and sends that leave the NVLink domains).
  bool step_plan = false;
  jobs::StepTraffic traffic;
  PlacedCollective dp, dp_outer, pp, cp;
  std::vector<std::uint32_t> gpus;
  std::vector<std::uint32_t> nodes;  ///< distinct, ascending
  jobs::ModelMetadata meta;
};

FleetNetwork::FleetNetwork(Topology topology, TopologyConfig config)
    : topo_(std::move(topology)), config_(std::move(config)), router_(topo_, config_.metric) {
  fabric_ = std::make_unique<FlowNetwork>(topo_.directed_capacities());
  const Graph& g = topo_.graph();
  const std::uint32_t nodes = topo_.nodes();
  for (const Vertex v : topo_.gpus())
    node_of_gpu_.push_back(static_cast<std::uint32_t>(topo_.vertex(v).node));

  // NIC bandwidth towards the network, storage bandwidth, and the power of an idle network.
  nic_.assign(nodes, NodeNics{});
  link_use_.assign(topo_.link_count(), LinkUse{});
  for (std::uint32_t id = 0; id < topo_.link_count(); ++id) {
    const auto [a, b] = topo_.link_ends(id);
    const auto& pa = g[a];
    const auto& pb = g[b];
    idle_W_ += topo_.link(id).idle_W;
    for (const auto* p : {&pa, &pb}) {
      if (p->kind == VertexKind::nic && p->node >= 0) {
        const auto n = static_cast<std::uint32_t>(p->node);
        link_use_[id].nic_node = n;
        const auto& other = p == &pa ? pb : pa;
        if (is_network_switch(other.kind)) {
          nic_[n].Bps += topo_.link(id).bandwidth_Bps;
          ++nic_[n].links;
        }
      }
      if (p->kind == VertexKind::storage) {
        storage_Bps_ += topo_.link(id).bandwidth_Bps;
        storage_links_.push_back(id);
      }
    }
  }
  for (const Vertex v : boost::make_iterator_range(boost::vertices(g))) {
    idle_W_ += g[v].idle_W;
    if (g[v].kind == VertexKind::nic && g[v].node >= 0)
      nic_active_W_ = std::max(nic_active_W_, g[v].active_W);
  }
  for (const std::uint32_t id : storage_links_)
    storage_active_W_ += topo_.link(id).active_W - topo_.link(id).idle_W;
  power_W_ = idle_W_;
  for (std::uint32_t id = 0; id < topo_.link_count(); ++id)
    link_use_[id].active_extra_W = topo_.link(id).active_W - topo_.link(id).idle_W;

  const double pool = storage_Bps_ > 0.0 ? storage_Bps_ : 1.0;  // unused without storage
  reads_ = std::make_unique<SharedPool>(pool);
  writes_ = std::make_unique<SharedPool>(pool);
}

FleetNetwork::~FleetNetwork() = default;

std::uint32_t FleetNetwork::node_of_gpu(std::uint32_t gpu) const {
  return node_of_gpu_.at(gpu);
}

void FleetNetwork::use_links(std::span<const DirectedLink> path, int delta) {
  for (const DirectedLink dl : path) {
    LinkUse& l = link_use_[dl / 2];
    if (delta > 0) {
      if (l.users++ == 0) power_W_ += l.active_extra_W;
    } else {
      if (--l.users == 0) power_W_ -= l.active_extra_W;
    }
    if (l.nic_node != kNone) use_nic(l.nic_node, delta);
  }
}

void FleetNetwork::use_links(const PlacedCollective& collective, int delta) {
  for (std::size_t i = 0; i < collective.flows().size(); ++i) use_links(collective.path(i), delta);
}

void FleetNetwork::use_nic(std::uint32_t node, int delta) {
  auto& n = nic_[node];
  const double w = nic_active_W_ * static_cast<double>(n.links);
  if (delta > 0) {
    if (n.users++ == 0) power_W_ += w;
  } else {
    if (--n.users == 0) power_W_ -= w;
  }
}

void FleetNetwork::use_storage(int delta) {
  const double w = storage_active_W_;
  if (delta > 0) {
    if (storage_users_++ == 0) power_W_ += w;
  } else {
    if (--storage_users_ == 0) power_W_ -= w;
  }
}

NetJob FleetNetwork::add_job(const std::vector<std::uint32_t>& gpus, const jobs::EpochPlan& plan) {
  NetJob id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<NetJob>(jobs_.size());
    jobs_.push_back(std::make_unique<JobState>());
    checkpoints_.emplace_back();
    epoch_memo_.emplace_back();
  }
  JobState& s = *jobs_[id];
  try {
    fill_job(s, id, gpus, plan);
  } catch (...) {
    release_job(s);
    free_.push_back(id);
    throw;
  }
  s.live = true;
  return id;
}

void FleetNetwork::fill_job(JobState& s, NetJob id, const std::vector<std::uint32_t>& gpus,
                            const jobs::EpochPlan& plan) {
  const jobs::ModelMetadata& meta = plan.model;
  s.gpus.assign(gpus.begin(), gpus.end());
  std::sort(s.gpus.begin(), s.gpus.end());
  s.nodes.clear();
  for (const auto gpu : s.gpus) s.nodes.push_back(node_of_gpu(gpu));
  s.nodes.erase(std::unique(s.nodes.begin(), s.nodes.end()), s.nodes.end());
  s.meta = meta;
  s.compute_s = plan[jobs::PartKind::compute].s;
  s.step_plan = plan.steps > 0.0 && plan.traffic && *plan.traffic != jobs::StepTraffic{};
  s.traffic = s.step_plan ? *plan.traffic : jobs::StepTraffic{};
  const auto n_gpus = static_cast<std::uint32_t>(s.gpus.size());
  const std::uint32_t batch = meta.batch_size != 0 ? meta.batch_size : kDefaultBatchPerGpu * n_gpus;
  s.steps = models::steps_per_epoch(meta.dataset_samples, batch);
  s.sample_bytes = models::bytes_per_sample(meta, config_.training);
  s.workers =
      meta.workers != 0 ? meta.workers : static_cast<double>(config_.training.default_workers) * n_gpus;

  // ECMP keys differ per job so that jobs spread over equal paths.
  const std::uint64_t key = static_cast<std::uint64_t>(id) * 0x10001ULL;

  const double grad = models::gradient_bytes(meta, config_.training);
  if (s.step_plan) {
    add_step_traffic(s, id, key);
  } else if (n_gpus > 1 && grad > 0.0) {
    auto& ranks = scratch_ranks_;
    ranks.clear();
    for (const auto gpu : s.gpus) ranks.push_back(topo_.gpus().at(gpu));
    Collective& c = s.allreduce.next();
    switch (config_.allreduce) {
      case AllReduceAlgorithm::ring:
        ring_all_reduce(ranks, grad, c);
        break;
      case AllReduceAlgorithm::tree:
        tree_all_reduce(ranks, grad, c);
        break;
      case AllReduceAlgorithm::hierarchical:
        hierarchical_all_reduce(topo_, ranks, grad, c);
        break;
    }
    s.allreduce.place(router_, *fabric_, key, 2 * id);
    use_links(s.allreduce, +1);
  }
  if (storage_Bps_ > 0.0 && meta.dataset_samples > 0.0 && s.sample_bytes > 0.0) {
    // One read flow per node, capped by that node's share of the data-loader workers. The GPUs are sorted,
    // so each node's lie together, in the order of s.nodes: one pass counts them.
    std::size_t at = 0;
    s.reads.reserve(s.nodes.size());
    for (const auto node : s.nodes) {
      std::size_t count = 0;
      for (; at < s.gpus.size() && node_of_gpu_[s.gpus[at]] == node; ++at) ++count;
      const auto on_node = static_cast<double>(count);
      const double cap =
          s.workers * on_node / n_gpus * config_.training.decode_rate_per_worker * s.sample_bytes;
      s.reads.push_back(reads_->add(std::min(cap, nic_[node].Bps > 0.0 ? nic_[node].Bps : kInf)));
      use_nic(node, +1);
      use_storage(+1);
    }
  }
  epoch_memo_[id] = EpochMemo{};
  auto& c = checkpoints_[id];
  c = CheckpointState{};
  const double checkpoint_bytes = plan.checkpoint_bytes > 0.0
                                      ? plan.checkpoint_bytes
                                      : models::checkpoint_bytes(s.meta, config_.training);
  if (checkpoint_bytes > 0.0 && storage_Bps_ > 0.0) {
    // The nodes grouped by NIC bandwidth: fixed while the job runs, so computed once.
    auto& caps = scratch_caps_;
    caps.clear();
    for (const auto node : s.nodes) caps.push_back(nic_[node].Bps > 0.0 ? nic_[node].Bps : kInf);
    std::sort(caps.begin(), caps.end());
    auto& groups = scratch_groups_;
    groups.clear();
    for (std::size_t i = 0; i < caps.size();) {
      std::size_t k = i;
      while (k < caps.size() && caps[k] == caps[i]) ++k;
      groups.emplace_back(caps[i], static_cast<std::uint32_t>(k - i));
      i = k;
    }
    c.write_bytes = checkpoint_bytes / static_cast<double>(s.nodes.size());
    c.single = groups.size() == 1 && !s.reads.empty();
    c.cap_Bps = groups.front().first;
    c.nodes = groups.front().second;
    if (!c.single) s.write_groups.assign(groups.begin(), groups.end());
  }
}

void FleetNetwork::add_step_traffic(JobState& s, NetJob id, std::uint64_t key) {
  const jobs::Parallelism& par = s.meta.parallel;
  const auto n = static_cast<std::uint32_t>(s.gpus.size());
  const std::uint32_t dp = par.dp(n);
  if (dp == 0) return;  // the plan's split does not fit these GPUs: nothing to lay out
  const auto vertex = [&](const jobs::RankCoords& c) { return topo_.gpus().at(s.gpus[par.rank(c, dp)]); };
  const auto& t = s.traffic;
  // A builder writes into the slot's collective; one without transfers is not placed.
  const auto place = [&](PlacedCollective& out, FlowNetwork& plane, std::uint32_t group) {
    if (out.next().phases.empty()) return;
    out.place(router_, plane, key, group);
    use_links(out, +1);
  };
  const auto passes = [](double p) { return static_cast<std::uint32_t>(std::lround(p)); };
  // Data parallel: each group of the tp x pp positions (each shard group under hybrid sharding), its
  // context- and data-parallel ranks in rank order; hybrid sharding's replicas: the ranks of one place in
  // their shard groups.
  const std::uint32_t shard = par.shard_group(dp), replicas = dp / std::max(shard, 1u);
  if (t.dp.fabric) {
    std::vector<std::vector<Vertex>> groups;
    for (std::uint32_t p = 0; p < par.pp; ++p)
      for (std::uint32_t tp = 0; tp < par.tp; ++tp)
        for (std::uint32_t o = 0; o < replicas; ++o) {
          std::vector<Vertex> g;
          for (std::uint32_t d = o * shard; d < (o + 1) * shard; ++d)
            for (std::uint32_t c = 0; c < par.cp; ++c) g.push_back(vertex({tp, c, p, d}));
          std::sort(g.begin(), g.end());
          groups.push_back(std::move(g));
        }
    rail_ring_groups(topo_, groups, t.dp.bytes, passes(t.dp.passes), s.dp.next());
    place(s.dp, *fabric_, 2 * id);
  }
  if (t.dp_outer.fabric) {
    std::vector<std::vector<Vertex>> groups;
    for (std::uint32_t p = 0; p < par.pp; ++p)
      for (std::uint32_t tp = 0; tp < par.tp; ++tp)
        for (std::uint32_t c = 0; c < par.cp; ++c)
          for (std::uint32_t i = 0; i < shard; ++i) {
            std::vector<Vertex> g;
            for (std::uint32_t o = 0; o < replicas; ++o) g.push_back(vertex({tp, c, p, o * shard + i}));
            groups.push_back(std::move(g));
          }
    rail_ring_groups(topo_, groups, t.dp_outer.bytes, passes(t.dp_outer.passes), s.dp_outer.next());
    place(s.dp_outer, *fabric_, 2 * id + 1);
  }
  // Pipeline: every stage boundary of every tp x cp x dp position (the fill and drain pass them one after
  // another; the slowest boundary's rate times each send).
  if (t.pp.fabric && par.pp > 1) {
    std::vector<std::pair<Vertex, Vertex>> pairs;
    for (std::uint32_t d = 0; d < dp; ++d)
      for (std::uint32_t c = 0; c < par.cp; ++c)
        for (std::uint32_t tp = 0; tp < par.tp; ++tp)
          for (std::uint32_t p = 0; p + 1 < par.pp; ++p)
            pairs.emplace_back(vertex({tp, c, p, d}), vertex({tp, c, p + 1, d}));
    concurrent_sends(pairs, t.pp.bytes, s.pp.next());
    place(s.pp, sends(), 2 * id);
  }
  // Context parallel: each ring of cp ranks passes its KV blocks to the next.
  if (t.cp.fabric && par.cp > 1) {
    std::vector<std::pair<Vertex, Vertex>> pairs;
    for (std::uint32_t d = 0; d < dp; ++d)
      for (std::uint32_t p = 0; p < par.pp; ++p)
        for (std::uint32_t tp = 0; tp < par.tp; ++tp)
          for (std::uint32_t c = 0; c < par.cp; ++c)
            pairs.emplace_back(vertex({tp, c, p, d}), vertex({tp, (c + 1) % par.cp, p, d}));
    concurrent_sends(pairs, t.cp.bytes, s.cp.next());
    place(s.cp, sends(), 2 * id + 1);
  }
}

FlowNetwork& FleetNetwork::sends() {
  // Built on the first job with sends on the fabric: a fleet without such jobs keeps one plane.
  if (!sends_) sends_ = std::make_unique<FlowNetwork>(topo_.directed_capacities());
  return *sends_;
}

void FleetNetwork::remove_job(NetJob job) {
  FLEETWATT_ASSERT(job < jobs_.size() && jobs_[job]->live, "removing a job the network does not hold");
  if (checkpoints_[job].writing) end_checkpoint(job);
  release_job(*jobs_[job]);
  epoch_memo_[job].valid = false;
  free_.push_back(job);
}

void FleetNetwork::release_job(JobState& s) {
  for (auto* c : {&s.allreduce, &s.dp, &s.dp_outer, &s.pp, &s.cp})
    if (c->placed()) {
      use_links(*c, -1);
      c->release();
    }
  for (std::size_t i = 0; i < s.reads.size(); ++i) {
    reads_->remove(s.reads[i]);
    use_nic(s.nodes[i], -1);
    use_storage(-1);
  }
  s.reads.clear();
  s.write_groups.clear();
  s.live = false;
}

EpochCost FleetNetwork::epoch_cost(NetJob job) {
  EpochMemo& memo = epoch_memo_.at(job);
  const auto rates_changed = [&] {
    return ((memo.groups & 1) && fabric_->changed(2 * job)) ||
           ((memo.groups & 2) && fabric_->changed(2 * job + 1)) ||
           ((memo.groups & 4) && sends_->changed(2 * job)) ||
           ((memo.groups & 8) && sends_->changed(2 * job + 1));
  };
  if (memo.valid && !rates_changed() && (!memo.reads || reads_->level() == memo.read_level))
    return memo.cost;  // the same inputs: the same cost, bit for bit
  auto& s = *jobs_.at(job);
  EpochCost c;
  c.steps = s.steps;
  c.compute_s = s.compute_s;
  const double steps = static_cast<double>(s.steps);
  const double alpha = config_.training.alpha_s;
  if (s.step_plan) {
    // The plan's rings and sends: those on the fabric at the current rates, the others as planned.
    const auto& t = s.traffic;
    c.step_plan = true;
    const auto ring = [&](const jobs::StepTraffic::Ring& r, PlacedCollective& placed) {
      if (!r.fabric) return r.plan_s;
      return std::max(r.floor_s, placed.placed() ? r.times * placed.time(alpha) : 0.0);
    };
    const auto sends = [&](const jobs::StepTraffic::Sends& x, PlacedCollective& placed) {
      if (!x.fabric) return x.plan_s;
      return placed.placed() ? x.count * placed.time(alpha) : 0.0;
    };
    c.dp_step_s = ring(t.dp, s.dp) + ring(t.dp_outer, s.dp_outer);
    c.pp_step_s = sends(t.pp, s.pp);
    c.cp_step_s = sends(t.cp, s.cp);
  } else if (s.allreduce.placed()) {
    c.allreduce_s = s.allreduce.time(config_.training.alpha_s);
    c.comm_s = c.allreduce_s * steps;
    c.comm_exposed_s = steps * models::exposed_communication(s.compute_s / steps, c.allreduce_s,
                                                             config_.training.comm_overlap,
                                                             config_.training.backward_fraction);
  }
  if (!s.reads.empty()) {
    for (const auto r : s.reads) c.read_share_Bps += reads_->rate(r);
    const auto l = models::epoch_loading(s.meta.dataset_samples, s.sample_bytes, c.read_share_Bps, s.workers,
                                         config_.training.decode_rate_per_worker, s.compute_s,
                                         config_.training.prefetch_depth, s.steps);
    c.io_load_s = l.load_s;
    c.io_exposed_s = l.exposed_s;
  }
  // Every read client's rate is min(its cap, the level): the level is all that can change them.
  const std::uint8_t groups = static_cast<std::uint8_t>((s.allreduce.placed() || s.dp.placed() ? 1 : 0) |
                                                        (s.dp_outer.placed() ? 2 : 0) |
                                                        (s.pp.placed() ? 4 : 0) | (s.cp.placed() ? 8 : 0));
  memo = EpochMemo{c, s.reads.empty() ? 0.0 : reads_->level(), true, groups, !s.reads.empty()};
  return c;
}

double FleetNetwork::begin_checkpoint(NetJob job) {
  auto& c = checkpoints_.at(job);
  FLEETWATT_ASSERT(jobs_[job]->live, "checkpoint of a job the network does not hold");
  FLEETWATT_ASSERT(!c.writing, "checkpoint already in progress");
  // Data-parallel replicas hold the same state; each node writes its 1/n share (sharded checkpoints).
  if (!(c.write_bytes > 0.0)) return 0.0;
  c.writing = true;
  if (c.single) {
    // One NIC bandwidth: one pool client for all the nodes (the reads hold the NICs: see below).
    c.client = writes_->add(c.cap_Bps, c.nodes);
    return c.write_bytes / writes_->rate(c.client);
  }
  auto& s = *jobs_[job];
  // A job that reads its data already holds every one of its nodes' NICs and the storage servers active
  // (one read client per node) until it leaves: the write's extra users could not switch any of them on
  // or off, so they are not counted (the same power, without touching each node).
  if (s.reads.empty()) hold_nics(s.nodes, +1);
  for (const auto& [cap, count] : s.write_groups) s.writes.push_back(writes_->add(cap, count));
  // The slowest node sets the duration; every node writes the same bytes.
  double t = 0.0;
  for (const auto w : s.writes) t = std::max(t, c.write_bytes / writes_->rate(w));
  return t;
}

void FleetNetwork::end_checkpoint(NetJob job) {
  auto& c = checkpoints_.at(job);
  if (!c.writing) return;
  c.writing = false;
  if (c.single) {
    writes_->remove(c.client);
    return;
  }
  auto& s = *jobs_.at(job);
  for (const auto w : s.writes) writes_->remove(w);
  if (s.reads.empty()) hold_nics(s.nodes, -1);
  s.writes.clear();
}

void FleetNetwork::hold_nics(const std::vector<std::uint32_t>& nodes, int delta) {
  for (const auto node : nodes) {
    use_nic(node, delta);
    use_storage(delta);
  }
}

}  // namespace fleetwatt::topologies
