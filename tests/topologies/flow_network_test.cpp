// Max-min fair sharing by progressive filling, ECMP spreading, and incremental recomputation.
#include <catch2/catch.hpp>

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/topologies/fabrics/topology_config.hpp"
#include "fleetwatt/topologies/flows/flow_network.hpp"
#include "fleetwatt/topologies/flows/shared_pool.hpp"
#include "fleetwatt/topologies/graph/routing.hpp"

using namespace fleetwatt::topologies;

TEST_CASE("two equal flows on one bottleneck each get half") {
  FlowNetwork net({10e9, 40e9});
  const FlowId a = net.add_flow({0, 1}), b = net.add_flow({0, 1});
  CHECK(net.rate(a) == Approx(5e9));
  CHECK(net.rate(b) == Approx(5e9));
  net.remove_flow(b);
  CHECK(net.rate(a) == Approx(10e9));  // alone again: the whole bottleneck
}

TEST_CASE("a flow limited elsewhere leaves the rest of the shared link to the other (max-min)") {
  // Link 0 (10) carries a and b; b also crosses link 1 (2): b = 2, and a takes the remaining 8, not 5.
  FlowNetwork net({10.0, 2.0});
  const FlowId a = net.add_flow({0}), b = net.add_flow({0, 1});
  CHECK(net.rate(b) == Approx(2.0));
  CHECK(net.rate(a) == Approx(8.0));
}

TEST_CASE("a flow's own cap counts as a bottleneck") {
  FlowNetwork net({10.0});
  const FlowId a = net.add_flow({0}, 3.0), b = net.add_flow({0});
  CHECK(net.rate(a) == Approx(3.0));
  CHECK(net.rate(b) == Approx(7.0));
}

TEST_CASE("progressive filling reproduces the textbook max-min allocation") {
  // Bertsekas & Gallager's example shape: f0 crosses links 0 (cap 1) and 1 (cap 2); f1 uses link 0 only,
  // f2 link 1 only. Link 0 saturates first at 1/2 each; f2 then fills link 1 to 2 - 1/2.
  FlowNetwork net({1.0, 2.0});
  const FlowId f0 = net.add_flow({0, 1}), f1 = net.add_flow({0}), f2 = net.add_flow({1});
  CHECK(net.rate(f0) == Approx(0.5));
  CHECK(net.rate(f1) == Approx(0.5));
  CHECK(net.rate(f2) == Approx(1.5));
}

TEST_CASE("only flows coupled to a change are recomputed") {
  FlowNetwork net({10.0, 10.0, 10.0});
  const FlowId far = net.add_flow({2});
  net.add_flow({0});
  net.update();
  const auto before = net.recomputed_flows();
  const FlowId near = net.add_flow({0, 1});
  CHECK(net.update() == 2);  // the new flow and the one sharing link 0; not `far`
  CHECK(net.recomputed_flows() - before == 2);
  CHECK(net.rate(far) == Approx(10.0));
  CHECK(net.rate(near) == Approx(5.0));
}

TEST_CASE("ECMP splits two equal flows over the two equal paths of a leaf-spine") {
  // Two leaves, two spines; each uplink carries 1/4 of a NIC (oversubscription 2 over 2 spines, one host
  // per leaf with NIC bandwidth 4b... uplink = 1 * 4b / (2 * 2) = b). Split, each flow gets a whole uplink b;
  // on one path they would share it at b/2.
  TopologyConfig c;
  c.kind = "leaf_spine";
  c.leaves = 2;
  c.spines = 2;
  c.hosts_per_leaf = 1;
  c.oversubscription = 2.0;
  c.nic_link.bandwidth_Bps = 4e9;
  c.node.pcie.bandwidth_Bps = 100e9;
  c.storage.servers = 0;
  const Topology t = build_topology(c, 2, 1);
  Router r(t, RouteMetric::hops);
  const Vertex a = t.gpus()[0], b = t.gpus()[1];
  const double uplink = 1e9;
  FlowNetwork split(t.directed_capacities());
  const FlowId f0 = split.add_flow(r.path(a, b, 0)), f1 = split.add_flow(r.path(a, b, 1));
  CHECK(split.rate(f0) == Approx(uplink));
  CHECK(split.rate(f1) == Approx(uplink));
  FlowNetwork same(t.directed_capacities());
  const FlowId g0 = same.add_flow(r.path(a, b, 5)), g1 = same.add_flow(r.path(a, b, 5));
  CHECK(same.rate(g0) == Approx(uplink / 2));
  CHECK(same.rate(g1) == Approx(uplink / 2));
}

TEST_CASE("removed flow ids are reused and bad use is refused") {
  FlowNetwork net({1.0});
  const FlowId a = net.add_flow({0});
  net.remove_flow(a);
  CHECK_THROWS_AS(net.remove_flow(a), fleetwatt::InvariantError);
  CHECK(net.add_flow({0}) == a);
  CHECK_THROWS_AS(net.add_flow({7}), std::out_of_range);
  CHECK_THROWS_AS(FlowNetwork({0.0}), std::invalid_argument);
}

TEST_CASE("while no link is oversubscribed, flows run at their caps and only new flows are touched") {
  // Link 0 (10) carries caps 3 and 4: 7 fits, so both run at their caps. A third flow of cap 5 makes the
  // link oversubscribed (12 > 10): max-min gives the 3 and splits the rest, 3.5 and 3.5. Removing it
  // returns the others to their caps.
  FlowNetwork net({10.0, 10.0});
  const FlowId a = net.add_flow({0}, 3.0), b = net.add_flow({0, 1}, 4.0);
  CHECK(net.rate(a) == 3.0);
  CHECK(net.rate(b) == 4.0);
  const FlowId far = net.add_flow({1}, 1.0);
  CHECK(net.update() == 1);  // only the new flow
  CHECK(net.rate(far) == 1.0);
  const FlowId c = net.add_flow({0}, 5.0);
  CHECK(net.rate(a) == Approx(3.0));
  CHECK(net.rate(b) == Approx(3.5));
  CHECK(net.rate(c) == Approx(3.5));
  net.remove_flow(c);
  CHECK(net.rate(b) == Approx(4.0));
  CHECK(net.rate(a) == Approx(3.0));
}

TEST_CASE("a shared pool gives each client min(cap, water level)") {
  // 10 GB/s among ten uncapped readers: a tenth each. Caps of 0.5 for two of them leave 9 for the other
  // eight: 1.125 each. All caps fitting (sum <= capacity): every client at its cap.
  SharedPool pool(10e9);
  std::vector<std::uint32_t> ids;
  for (int i = 0; i < 10; ++i) ids.push_back(pool.add(std::numeric_limits<double>::infinity()));
  for (const auto id : ids) CHECK(pool.rate(id) == Approx(1e9));
  pool.remove(ids[0]);
  pool.remove(ids[1]);
  const auto a = pool.add(0.5e9), b = pool.add(0.5e9);
  CHECK(pool.rate(a) == Approx(0.5e9));
  CHECK(pool.rate(ids[2]) == Approx(9e9 / 8));
  CHECK(pool.rate(b) + 8 * pool.rate(ids[5]) == Approx(10e9 - 0.5e9));
  SharedPool roomy(10e9);
  const auto c = roomy.add(2e9), d = roomy.add(3e9);
  CHECK(roomy.rate(c) == 2e9);
  CHECK(roomy.rate(d) == 3e9);
  CHECK(roomy.level() == std::numeric_limits<double>::infinity());
  CHECK_THROWS_AS(roomy.remove(7), fleetwatt::InvariantError);
}
