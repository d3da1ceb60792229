// Incremental max-min rates after adds and removes equal closed forms and a from-scratch progressive
// filling; flow groups flag exactly the changes their owners must see; a collective's kept time equals a
// recomputed one; a pool client standing for n clients gets what each of n separate clients would.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <random>

#include "fleetwatt/topologies/flows/collectives.hpp"
#include "fleetwatt/topologies/flows/flow_network.hpp"
#include "fleetwatt/topologies/flows/shared_pool.hpp"

using namespace fleetwatt::topologies;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct RefFlow {
  std::vector<DirectedLink> path;
  double cap;
};

/// Max-min rates from scratch, written out plainly: raise every unfrozen flow's rate together; the next
/// level is the smallest of the unfrozen flows' caps and of each link's (capacity - frozen traffic) /
/// (unfrozen flows on it); freeze the flows at that cap or on that link; repeat.
std::vector<double> max_min(const std::vector<double>& capacity, const std::vector<RefFlow>& flows) {
  std::vector<double> rate(flows.size(), 0.0);
  std::vector<bool> frozen(flows.size(), false);
  std::size_t left = flows.size();
  while (left > 0) {
    double level = kInf;
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (!frozen[f]) level = std::min(level, flows[f].cap);
    for (DirectedLink l = 0; l < capacity.size(); ++l) {
      double used = 0.0;
      std::size_t n = 0;
      for (std::size_t f = 0; f < flows.size(); ++f) {
        if (std::count(flows[f].path.begin(), flows[f].path.end(), l) == 0) continue;
        if (frozen[f]) {
          used += rate[f];
        } else {
          ++n;
        }
      }
      if (n > 0) level = std::min(level, (capacity[l] - used) / static_cast<double>(n));
    }
    // Freeze every flow at its cap or on a link that this level saturates.
    std::vector<std::size_t> now;
    for (std::size_t f = 0; f < flows.size(); ++f) {
      if (frozen[f]) continue;
      bool stop = flows[f].cap <= level * (1 + 1e-12);
      for (const DirectedLink l : flows[f].path) {
        double used = 0.0;
        std::size_t n = 0;
        for (std::size_t g = 0; g < flows.size(); ++g) {
          if (std::count(flows[g].path.begin(), flows[g].path.end(), l) == 0) continue;
          if (frozen[g]) {
            used += rate[g];
          } else {
            ++n;
          }
        }
        stop = stop || (capacity[l] - used) / static_cast<double>(n) <= level * (1 + 1e-12);
      }
      if (stop) now.push_back(f);
    }
    for (const std::size_t f : now) {
      rate[f] = level;
      frozen[f] = true;
      --left;
    }
  }
  return rate;
}

}  // namespace

TEST_CASE("n flows on one bottleneck get C/n after every add and every remove") {
  // Link 0 (12 B/s) is every flow's bottleneck; link 1 (100) is crossed by the odd ones only.
  FlowNetwork net({12.0, 100.0});
  std::vector<FlowId> ids;
  for (int n = 1; n <= 8; ++n) {
    ids.push_back(n % 2 == 1 ? net.add_flow({0, 1}) : net.add_flow({0}));
    for (const FlowId f : ids) CHECK(net.rate(f) == Approx(12.0 / n));
  }
  // Remove in a scattered order: 3, 0, 6, 1, ...; the rest share 12 evenly each time.
  for (const std::size_t i : {3u, 0u, 6u, 1u, 7u, 2u, 4u}) {
    net.remove_flow(ids[i]);
    ids[i] = ~FlowId{0};
    std::size_t live = 0;
    for (const FlowId f : ids) live += f != ~FlowId{0} ? 1 : 0;
    for (const FlowId f : ids)
      if (f != ~FlowId{0}) CHECK(net.rate(f) == Approx(12.0 / static_cast<double>(live)));
  }
}

TEST_CASE("two bottlenecks: a flow held on the first leaves its share of the second to the others") {
  // Link A (6) carries a1, a2 and x; link B (20) carries x, b1, b2, b3. A saturates first: a1 = a2 = x =
  // 6/3 = 2; B's other flows split 20 - 2 = 18: 6 each. Without x: a1 = a2 = 3, b = 20/3 each. With a
  // fourth flow on A, x falls to 6/4 = 1.5 and the b flows rise to (20 - 1.5)/3.
  FlowNetwork net({6.0, 20.0});
  const FlowId a1 = net.add_flow({0}), a2 = net.add_flow({0}), x = net.add_flow({0, 1});
  const FlowId b1 = net.add_flow({1}), b2 = net.add_flow({1}), b3 = net.add_flow({1});
  CHECK(net.rate(a1) == Approx(2.0));
  CHECK(net.rate(x) == Approx(2.0));
  for (const FlowId b : {b1, b2, b3}) CHECK(net.rate(b) == Approx(6.0));
  const FlowId a3 = net.add_flow({0});
  CHECK(net.rate(x) == Approx(1.5));
  CHECK(net.rate(a3) == Approx(1.5));
  for (const FlowId b : {b1, b2, b3}) CHECK(net.rate(b) == Approx(18.5 / 3));
  net.remove_flow(a3);
  net.remove_flow(x);
  CHECK(net.rate(a1) == Approx(3.0));
  CHECK(net.rate(a2) == Approx(3.0));
  for (const FlowId b : {b1, b2, b3}) CHECK(net.rate(b) == Approx(20.0 / 3));
}

TEST_CASE("after random adds and removes, incremental rates equal a from-scratch max-min computation") {
  std::mt19937 rng(15);
  const std::vector<double> capacity = {10.0, 4.0, 7.0, 25.0, 3.0, 12.0, 9.0, 40.0};
  FlowNetwork net(capacity);
  std::vector<std::pair<FlowId, RefFlow>> live;
  std::uniform_int_distribution<int> coin(0, 2), len(0, 3), link(0, 7);
  std::uniform_real_distribution<double> cap(0.5, 15.0);
  std::size_t compared = 0;
  for (int step = 0; step < 400; ++step) {
    if (live.empty() || coin(rng) != 0) {
      RefFlow f{{}, coin(rng) == 0 ? cap(rng) : kInf};
      const int n = len(rng) + 1;
      for (int i = 0; i < n; ++i) {
        const auto l = static_cast<DirectedLink>(link(rng));
        if (std::count(f.path.begin(), f.path.end(), l) == 0) f.path.push_back(l);
      }
      live.emplace_back(net.add_flow(f.path, f.cap), f);
    } else {
      const std::size_t i = std::uniform_int_distribution<std::size_t>(0, live.size() - 1)(rng);
      net.remove_flow(live[i].first);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    }
    std::vector<RefFlow> ref;
    for (const auto& [id, f] : live) ref.push_back(f);
    const auto want = max_min(capacity, ref);
    for (std::size_t i = 0; i < live.size(); ++i) {
      CHECK(net.rate(live[i].first) == Approx(want[i]).epsilon(1e-9));
      ++compared;
    }
  }
  CHECK(compared > 1000);
}

TEST_CASE("a flow group is flagged when one of its rates changes, and only then") {
  FlowNetwork net({10.0, 10.0});
  const FlowId g = net.add_flow({0}, kInf, 3);
  CHECK(net.take_changed(3));   // started
  CHECK(!net.take_changed(3));  // taken
  net.add_flow({1});            // another link: the group's rate stays 10
  CHECK(!net.take_changed(3));
  const FlowId other = net.add_flow({0});  // shares the bottleneck: 10 -> 5
  CHECK(net.take_changed(3));
  CHECK(net.rate(g) == Approx(5.0));
  net.remove_flow(other);  // back to 10
  CHECK(net.take_changed(3));
  CHECK(!net.take_changed(3));
  CHECK(net.take_changed(99));  // a group never seen: nothing kept can be trusted
}

TEST_CASE("a collective's kept time equals the time recomputed from its rates at every change") {
  // The same ring of 3 over links 0..2 in two networks, one grouped (time kept between changes), one not;
  // the same competing flows come and go on both. Both times must be equal, bit for bit, throughout.
  const std::vector<double> caps = {8.0, 8.0, 8.0, 8.0, 8.0, 8.0};
  FlowNetwork kept_net(caps), plain_net(caps);
  Collective c{"ring", {{{{0, 1, 4.0}, {1, 2, 4.0}, {2, 0, 4.0}}, 4, 4}}};
  // A router is needed only to route; a three-vertex triangle gives each transfer its own link.
  Topology t;
  for (int i = 0; i < 3; ++i) {
    VertexProps p;
    p.kind = VertexKind::leaf;
    t.add_vertex(p);
  }
  t.add_link(0, 1, LinkSpec{8.0, 1e-6, 0, 0});
  t.add_link(1, 2, LinkSpec{8.0, 1e-6, 0, 0});
  t.add_link(2, 0, LinkSpec{8.0, 1e-6, 0, 0});
  Router r(t, RouteMetric::hops);
  PlacedCollective kept(c, r, kept_net, 0, 0), plain(c, r, plain_net, 0);
  CHECK(kept.time(1e-5) == plain.time(1e-5));
  // Ring time by hand: 4 x (alpha + 1 us) + 4 x (4 B / 8 B/s) = 4 x 11e-6 + 2 s.
  CHECK(plain.time(1e-5) == Approx(4 * 11e-6 + 2.0));
  std::vector<std::pair<FlowId, FlowId>> extra;
  for (const DirectedLink l : {0u, 2u, 0u, 4u}) {
    extra.emplace_back(kept_net.add_flow({l}), plain_net.add_flow({l}));
    CHECK(kept.time(1e-5) == plain.time(1e-5));
    CHECK(kept.time(2e-5) == plain.time(2e-5));  // another alpha: recomputed, not the kept one
  }
  // Two extra flows on link 0: the 0 -> 1 transfer gets 8/3, the ring waits for it.
  CHECK(plain.time(1e-5) == Approx(4 * 11e-6 + 4 * 4.0 / (8.0 / 3)));
  for (const auto& [a, b] : extra) {
    kept_net.remove_flow(a);
    plain_net.remove_flow(b);
    CHECK(kept.time(1e-5) == plain.time(1e-5));
  }
}

TEST_CASE("a pool client standing for n clients gets what each of n separate clients gets") {
  // 10 B/s among 3 writers capped at 2 (one client standing for 3) and 4 uncapped readers: the level L
  // with 3 min(2, L) + 4 L = 10 is L = 10/7 < 2, so all seven get 10/7.
  SharedPool grouped(10.0), single(10.0);
  const auto g = grouped.add(2.0, 3);
  const auto u = grouped.add(kInf, 4);
  std::vector<std::uint32_t> s;
  for (int i = 0; i < 3; ++i) s.push_back(single.add(2.0));
  for (int i = 0; i < 4; ++i) s.push_back(single.add(kInf));
  CHECK(grouped.rate(g) == single.rate(s[0]));
  CHECK(grouped.rate(u) == single.rate(s[6]));
  CHECK(grouped.rate(g) == Approx(10.0 / 7));
  CHECK(grouped.clients() == 7);
  // Caps of 1 instead: 3 x 1 + 4 L = 10, L = 7/4.
  grouped.remove(g);
  const auto g1 = grouped.add(1.0, 3);
  CHECK(grouped.rate(g1) == 1.0);
  CHECK(grouped.rate(u) == Approx(7.0 / 4));
  CHECK(grouped.clients() == 7);
  CHECK_THROWS_AS(grouped.add(1.0, 0), std::invalid_argument);
}
