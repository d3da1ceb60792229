// The simulator's view of the network: jobs' epoch costs under sharing, checkpoints, and network power.
#include <catch2/catch.hpp>

#include "fleetwatt/topologies/flows/fleet_network.hpp"

using namespace fleetwatt::topologies;
using fleetwatt::jobs::ModelMetadata;

namespace {

/// Ten single-GPU-node... rather: 16 nodes of 4 GPUs on a k = 4 fat-tree, storage of 2 x 10 GB/s.
TopologyConfig config() {
  TopologyConfig c;
  c.kind = "fat_tree";
  c.k = 4;
  c.storage.servers = 2;
  c.storage.link.bandwidth_Bps = 10e9;
  c.nic_link.bandwidth_Bps = 50e9;
  c.fabric.link.bandwidth_Bps = 50e9;
  c.training.bytes_per_sample = 100e3;
  c.training.decode_rate_per_worker = 1e6;  // decoding never limits in these tests
  c.training.prefetch_depth = 0;            // loading fully exposed: epochs show the storage share directly
  return c;
}

ModelMetadata io_job() {
  ModelMetadata m;
  m.dataset_samples = 2e5;  // 20 GB per epoch
  m.batch_size = 256;
  m.workers = 16;
  return m;
}

std::vector<std::uint32_t> node_gpus(std::uint32_t node) {
  return {4 * node, 4 * node + 1, 4 * node + 2, 4 * node + 3};
}

}  // namespace

TEST_CASE("one job alone reads at the full storage bandwidth, ten reading at once get a tenth each") {
  FleetNetwork net(build_topology(config(), 16, 4), config());
  REQUIRE(net.storage_Bps() == Approx(20e9));
  const NetJob first = net.add_job(node_gpus(0), io_job(), 100.0);
  const auto alone = net.epoch_cost(first);
  CHECK(alone.read_share_Bps == Approx(20e9));
  CHECK(alone.io_load_s == Approx(20e9 / 20e9));
  for (std::uint32_t n = 1; n < 10; ++n) net.add_job(node_gpus(n), io_job(), 100.0);
  const auto crowded = net.epoch_cost(first);
  CHECK(crowded.read_share_Bps == Approx(2e9));
  CHECK(crowded.io_load_s == Approx(10.0));
  // With loading exposed, the epoch stretches by exactly the extra loading time.
  CHECK(crowded.epoch_s() - alone.epoch_s() == Approx(9.0));
}

TEST_CASE("a job's NICs cap its storage share") {
  auto c = config();
  c.storage.link.bandwidth_Bps = 100e9;  // 200 GB/s of storage, one 50 GB/s NIC per node
  FleetNetwork net(build_topology(c, 16, 4), c);
  const NetJob j = net.add_job(node_gpus(0), io_job(), 100.0);
  CHECK(net.epoch_cost(j).read_share_Bps == Approx(50e9));
  const NetJob two_nodes = net.add_job({4, 5, 6, 7, 8, 9, 10, 11}, io_job(), 100.0);
  CHECK(net.epoch_cost(two_nodes).read_share_Bps == Approx(100e9));
}

TEST_CASE("a spread job exposes more communication than the same job packed") {
  auto c = config();
  c.storage.servers = 0;
  FleetNetwork net(build_topology(c, 16, 4), c);
  ModelMetadata m;
  m.params = 350e6;  // BERT-large-sized gradients, fp32: 1.4 GB per step
  m.batch_size = 64;
  m.dataset_samples = 64 * 100;                                                  // 100 steps
  const NetJob packed = net.add_job({0, 1, 2, 3, 4, 5, 6, 7}, m, 30.0);          // two nodes, one rack
  const NetJob spread = net.add_job({16, 17, 32, 33, 48, 49, 60, 61}, m, 30.0);  // four nodes, four pods
  const auto p = net.epoch_cost(packed), s = net.epoch_cost(spread);
  CHECK(p.steps == 100);
  CHECK(p.comm_s > 0.0);
  CHECK(s.allreduce_s > p.allreduce_s);
  CHECK(s.comm_exposed_s > p.comm_exposed_s);
  CHECK(s.epoch_s() > p.epoch_s());
  // The all-reduce's exposed part per step follows the overlap rule.
  const double per_step = p.allreduce_s, compute = 30.0 / 100;
  CHECK(p.comm_exposed_s == Approx(100 * (per_step - std::min(0.7 * per_step, 2.0 / 3 * compute))));
}

TEST_CASE("a checkpoint writes params x state bytes over the job's write share") {
  FleetNetwork net(build_topology(config(), 16, 4), config());
  ModelMetadata m;
  m.params = 1e9;  // 12 GB of fp32 weights and Adam state
  const NetJob j = net.add_job(node_gpus(0), m, 10.0);
  CHECK(net.begin_checkpoint(j) == Approx(12e9 / 20e9));
  net.end_checkpoint(j);
  const NetJob k = net.add_job(node_gpus(1), m, 10.0);
  net.begin_checkpoint(j);
  CHECK(net.begin_checkpoint(k) == Approx(12e9 / 10e9));  // two writers share the storage
}

TEST_CASE("network power is the idle sum plus the active part of links and NICs that carry flows") {
  auto c = config();
  c.storage.servers = 0;
  const Topology t = build_topology(c, 16, 4);
  double idle = 0.0;
  for (const Vertex v : boost::make_iterator_range(boost::vertices(t.graph()))) idle += t.vertex(v).idle_W;
  for (std::uint32_t id = 0; id < t.link_count(); ++id) idle += t.link(id).idle_W;
  // k = 4 fat-tree: 20 switches; 16 NICs; 16 + 32 network links.
  CHECK(idle == Approx(20 * c.fabric.switch_idle_W + 16 * c.node.nic_idle_W + 48 * c.fabric.link.idle_W));
  FleetNetwork net(t, c);
  CHECK(net.power_W() == Approx(idle));
  ModelMetadata m;
  m.params = 1e6;
  // Nodes 0 and 1 share an edge switch: the ring uses two NIC links (both directions) and both NICs.
  const NetJob j = net.add_job({0, 4}, m, 1.0);
  const double link_extra = c.nic_link.active_W - c.nic_link.idle_W;
  CHECK(net.power_W() == Approx(idle + 2 * link_extra + 2 * c.node.nic_active_W));
  net.remove_job(j);
  CHECK(net.power_W() == Approx(idle));
}

TEST_CASE("a job slot reused after a job ends gives the next job what a fresh network gives it") {
  // Job slots (and their flows' buffers) are recycled: a job on a recycled slot must cost what it costs on
  // a network that never held another job, and leave nothing behind when it ends.
  auto c = config();
  FleetNetwork net(build_topology(c, 16, 4), c);
  const double idle = net.power_W();
  ModelMetadata m = io_job();
  m.params = 350e6;
  const NetJob big = net.add_job({0, 1, 2, 3, 16, 17, 32, 33, 48, 49}, m, 30.0);
  net.remove_job(big);
  CHECK(net.power_W() == Approx(idle));
  const NetJob small = net.add_job({8, 9, 12, 13}, m, 30.0);
  CHECK(small == big);  // the same slot
  FleetNetwork fresh(build_topology(c, 16, 4), c);
  const NetJob alone = fresh.add_job({8, 9, 12, 13}, m, 30.0);
  const auto a = net.epoch_cost(small), b = fresh.epoch_cost(alone);
  CHECK(a.allreduce_s == b.allreduce_s);
  CHECK(a.read_share_Bps == b.read_share_Bps);
  CHECK(a.epoch_s() == b.epoch_s());
  CHECK(net.power_W() == Approx(fresh.power_W()));
  CHECK(net.begin_checkpoint(small) == fresh.begin_checkpoint(alone));
  net.end_checkpoint(small);
  net.remove_job(small);
  CHECK(net.power_W() == Approx(idle));
}
