// Collective costs on placed GPUs and shared links, against their alpha-beta closed forms.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <stdexcept>

#include "fleetwatt/topologies/fabrics/topology_config.hpp"
#include "fleetwatt/topologies/flows/collectives.hpp"

using namespace fleetwatt::topologies;

namespace {

/// p single-GPU vertices joined in a ring by links of bandwidth B and no latency.
Topology gpu_ring(std::uint32_t p, double B) {
  Topology t;
  std::vector<Vertex> g;
  for (std::uint32_t i = 0; i < p; ++i) {
    VertexProps v;
    v.kind = VertexKind::gpu;
    v.name = fmt::format("g{}", i);
    v.node = static_cast<std::int32_t>(i);
    g.push_back(t.add_vertex(v));
  }
  for (std::uint32_t i = 0; i < p; ++i) t.add_link(g[i], g[(i + 1) % p], LinkSpec{B, 0.0, 0.0, 0.0});
  return t;
}

/// Leaf-spine fleet of 4-GPU NVSwitch nodes, one node per leaf (rack), with round numbers.
TopologyConfig racks_config() {
  TopologyConfig c;
  c.kind = "leaf_spine";
  c.hosts_per_leaf = 1;
  c.spines = 1;
  c.nic_link = LinkSpec{50e9, 1e-6, 0, 0};
  c.fabric.link.latency_s = 1e-6;
  c.node.pcie = LinkSpec{32e9, 2e-6, 0, 0};
  c.node.nvlink = LinkSpec{300e9, 0.5e-6, 0, 0};
  c.storage.servers = 0;
  return c;
}

}  // namespace

TEST_CASE("ring all-reduce over p GPUs with equal links takes 2(p-1)/p S/B + 2(p-1) alpha") {
  const std::uint32_t p = GENERATE(2u, 4u, 8u);
  const double B = 10e9, S = 1e9, alpha = 5e-6;
  Topology t = gpu_ring(p, B);
  Router r(t, RouteMetric::hops);
  FlowNetwork net(t.directed_capacities());
  PlacedCollective c(ring_all_reduce(t.gpus(), S), r, net);
  const double closed_form = 2.0 * (p - 1) / p * S / B + 2.0 * (p - 1) * alpha;
  CHECK(c.time(alpha) == Approx(closed_form).epsilon(1e-12));
}

TEST_CASE("ring all-gather and reduce-scatter take (p-1)/p S/B + (p-1) alpha") {
  const std::uint32_t p = 4;
  const double B = 10e9, S = 1e9, alpha = 5e-6;
  Topology t = gpu_ring(p, B);
  Router r(t, RouteMetric::hops);
  FlowNetwork net(t.directed_capacities());
  const double closed_form = (p - 1.0) / p * S / B + (p - 1.0) * alpha;
  CHECK(PlacedCollective(ring_all_gather(t.gpus(), S), r, net).time(alpha) == Approx(closed_form));
  CHECK(PlacedCollective(ring_reduce_scatter(t.gpus(), S), r, net).time(alpha) == Approx(closed_form));
}

TEST_CASE("all-to-all through one switch shares each GPU's link among its p-1 peers") {
  // Each GPU sends S/p to each of p-1 peers at once over its one link of bandwidth B: rate B/(p-1) each,
  // time (S/p) / (B/(p-1)) + (p-1) alpha.
  const std::uint32_t p = 4;
  const double B = 8e9, S = 1e9, alpha = 2e-6;
  Topology t;
  VertexProps sw;
  sw.kind = VertexKind::nvswitch;
  sw.name = "sw";
  const Vertex s = t.add_vertex(sw);
  for (std::uint32_t i = 0; i < p; ++i) {
    VertexProps v;
    v.kind = VertexKind::gpu;
    v.name = fmt::format("g{}", i);
    v.node = 0;
    t.add_link(t.add_vertex(v), s, LinkSpec{B, 0.0, 0.0, 0.0});
  }
  Router r(t, RouteMetric::hops);
  FlowNetwork net(t.directed_capacities());
  PlacedCollective c(all_to_all(t.gpus(), S), r, net);
  CHECK(c.time(alpha) == Approx(S / p / (B / (p - 1)) + (p - 1) * alpha));
}

TEST_CASE("double-binary-tree all-reduce on two GPUs moves half the buffer each way per tree") {
  // p = 2: depth 1; each tree reduces S/2 one way and broadcasts it back, the two trees in opposite
  // directions: 2 * (alpha + (S/2)/B).
  const double B = 10e9, S = 1e9, alpha = 5e-6;
  Topology t = gpu_ring(2, B);
  Router r(t, RouteMetric::hops);
  FlowNetwork net(t.directed_capacities());
  PlacedCollective c(tree_all_reduce(t.gpus(), S), r, net);
  CHECK(c.time(alpha) == Approx(2 * (alpha + S / 2 / B)));
}

TEST_CASE("a job packed in one node beats the same job spread over four racks") {
  const auto c = racks_config();
  const Topology t = build_topology(c, 4, 4);
  Router r(t, RouteMetric::latency);
  const double S = 100e6 * 4, alpha = 5e-6;
  const std::vector<Vertex> packed{t.gpus()[0], t.gpus()[1], t.gpus()[2], t.gpus()[3]};
  const std::vector<Vertex> spread{t.gpus()[0], t.gpus()[4], t.gpus()[8], t.gpus()[12]};
  FlowNetwork net1(t.directed_capacities());
  const double t_packed = PlacedCollective(ring_all_reduce(packed, S), r, net1).time(alpha);
  FlowNetwork net2(t.directed_capacities());
  const double t_spread = PlacedCollective(ring_all_reduce(spread, S), r, net2).time(alpha);
  // Packed: GPU -> NVSwitch -> GPU at the NVLink rate, 2 x 0.5 us per message.
  CHECK(t_packed == Approx(2.0 * 3 / 4 * S / 300e9 + 6 * (alpha + 1e-6)));
  // Spread: GPU -> PCIe -> NIC -> leaf -> spine -> leaf -> NIC -> PCIe -> GPU; the PCIe links (32 GB/s) are
  // the narrowest; latency 2 + 2 + 1 + 1 + 1 + 1 + 2 + 2 = 12 us.
  CHECK(t_spread == Approx(2.0 * 3 / 4 * S / 32e9 + 6 * (alpha + 12e-6)));
  CHECK(t_packed < t_spread);
}

TEST_CASE("two jobs whose rings share an uplink both slow down") {
  // Two leaves of two hosts, one spine, oversubscription 2: each leaf's uplink is 2 * 50 / 2 = 50 GB/s.
  // Alone, a 2-node job's ring crosses it at min(PCIe 64, NIC 50, uplink 50) = 50 GB/s; with a second job
  // crossing the same uplink both get 25 GB/s.
  auto c = racks_config();
  c.hosts_per_leaf = 2;
  c.oversubscription = 2.0;
  c.node.pcie.bandwidth_Bps = 64e9;
  const Topology t = build_topology(c, 4, 1);
  Router r(t, RouteMetric::latency);
  const double S = 1e9, alpha = 5e-6, lat = 4 * 2e-6 + 4 * 1e-6;  // 4 PCIe hops, 4 network hops
  const std::vector<Vertex> job_a{t.gpus()[0], t.gpus()[2]}, job_b{t.gpus()[1], t.gpus()[3]};
  FlowNetwork net(t.directed_capacities());
  auto a = std::make_unique<PlacedCollective>(ring_all_reduce(job_a, S), r, net, 0);
  const double alone = a->time(alpha);
  CHECK(alone == Approx(S / 50e9 + 2 * (alpha + lat)));
  PlacedCollective b(ring_all_reduce(job_b, S), r, net, 1000);
  CHECK(a->time(alpha) == Approx(S / 25e9 + 2 * (alpha + lat)));
  CHECK(b.time(alpha) == Approx(S / 25e9 + 2 * (alpha + lat)));
  a.reset();  // job A ends: B gets the whole uplink back
  CHECK(b.time(alpha) == Approx(alone));
}

TEST_CASE("hierarchical all-reduce: intra-node rings over NVLink, inter-node rings sharing the NIC") {
  // 2 nodes x 2 GPUs. Reduce-scatter and all-gather: (g-1) steps of S/g over NVLink each. Inter-node: g = 2
  // rings (one per local rank) share each node's one NIC and its PCIe link: 2(n-1) steps of S/(g n) at
  // min(PCIe 32 / 2, NIC 50 / 2) = 16 GB/s.
  const auto c = racks_config();
  const Topology t = build_topology(c, 2, 2);
  Router r(t, RouteMetric::latency);
  FlowNetwork net(t.directed_capacities());
  const double S = 1e9, alpha = 5e-6;
  PlacedCollective h(hierarchical_all_reduce(t, t.gpus(), S), r, net);
  const double intra = 1 * (alpha + 1e-6) + 1 * (S / 2) / 300e9;
  const double inter = 2 * (alpha + 12e-6) + 2 * (S / 4) / 16e9;
  CHECK(h.time(alpha) == Approx(2 * intra + inter));
}

TEST_CASE("a placed collective's flows leave the network with it") {
  Topology t = gpu_ring(4, 1e9);
  Router r(t, RouteMetric::hops);
  FlowNetwork net(t.directed_capacities());
  {
    PlacedCollective c(ring_all_reduce(t.gpus(), 1e6), r, net);
    CHECK(net.live_flows() == 4);
  }
  CHECK(net.live_flows() == 0);
}

TEST_CASE("one placed collective takes one collective after another, each timed as if placed alone") {
  // Released, it holds no flow; placed again with another ring (a job slot's next job), it costs what a
  // new object placing that ring costs: 2(p-1)/p S/B + 2(p-1) alpha with p of the new ring.
  Topology t = gpu_ring(4, 10e9);
  Router r(t, RouteMetric::hops);
  FlowNetwork net(t.directed_capacities());
  const double S = 1e9, alpha = 5e-6;
  PlacedCollective slot;
  CHECK_FALSE(slot.placed());
  ring_all_reduce(t.gpus(), S, slot.next());
  slot.place(r, net, 0, 7);
  CHECK(net.live_flows() == 4);
  CHECK(slot.time(alpha) == Approx(2.0 * 3 / 4 * S / 10e9 + 6 * alpha).epsilon(1e-12));
  CHECK_THROWS_AS(slot.next(), std::logic_error);
  slot.release();
  CHECK_FALSE(slot.placed());
  CHECK(net.live_flows() == 0);
  const std::vector<Vertex> two{t.gpus()[0], t.gpus()[1]};
  ring_all_reduce(two, S, slot.next());
  slot.place(r, net, 0, 7);
  CHECK(net.live_flows() == 2);
  // Two ranks: one link each way, p = 2.
  CHECK(slot.time(alpha) == Approx(S / 2 / 10e9 * 2 + 2 * alpha).epsilon(1e-12));
  FlowNetwork fresh_net(t.directed_capacities());
  CHECK(slot.time(alpha) == PlacedCollective(ring_all_reduce(two, S), r, fresh_net, 0, 7).time(alpha));
}

TEST_CASE("a builder writing into a used collective gives what it gives into a new one") {
  const auto c = racks_config();
  const Topology t = build_topology(c, 2, 2);
  Collective reused;
  tree_all_reduce(t.gpus(), 1e9, reused);  // two phases, to be replaced by three, then by one
  hierarchical_all_reduce(t, t.gpus(), 2e9, reused);
  const Collective fresh = hierarchical_all_reduce(t, t.gpus(), 2e9);
  const auto same = [](const Collective& a, const Collective& b) {
    if (a.name != b.name || a.phases.size() != b.phases.size()) return false;
    for (std::size_t i = 0; i < a.phases.size(); ++i) {
      const auto &x = a.phases[i], &y = b.phases[i];
      if (x.latency_steps != y.latency_steps || x.bandwidth_steps != y.bandwidth_steps ||
          x.transfers.size() != y.transfers.size())
        return false;
      for (std::size_t k = 0; k < x.transfers.size(); ++k)
        if (x.transfers[k].src != y.transfers[k].src || x.transfers[k].dst != y.transfers[k].dst ||
            x.transfers[k].bytes != y.transfers[k].bytes)
          return false;
    }
    return true;
  };
  REQUIRE(fresh.phases.size() == 3);
  CHECK(same(reused, fresh));
  ring_all_reduce(t.gpus(), 1e9, reused);
  CHECK(reused.phases.size() == 1);
  CHECK(same(reused, ring_all_reduce(t.gpus(), 1e9)));
  concurrent_sends({}, 1e9, reused);
  CHECK(reused.phases.empty());
}
