// Power accounting against a hand-worked example: one server, two GPUs, three power levels.
#include <catch2/catch.hpp>

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/sim/power/power_ledger.hpp"
#include "sim_test_support.hpp"

using namespace fleetwatt::sim;

namespace {
LedgerConfig small_config() {
  LedgerConfig c;
  c.nodes = 1;
  c.gpus_per_node = 2;
  c.gpu_idle_W = 10;
  c.node_base_W = 100;
  c.pue = 1.5;
  c.facility_interval = Duration::from_seconds(1);
  c.node_interval = Duration::from_seconds(2);
  return c;
}
}  // namespace

TEST_CASE("interval samples are exact means of the piecewise-constant power", "[ledger]") {
  // IT power: 120 W on [0, 0.5), 160 W on [0.5, 2.25) (GPU0 at 50 W), 180 W on [2.25, 4) (GPU1 at 30 W).
  fleetwatt::test::RecordingSink sink;
  PowerLedger ledger(small_config(), &sink);
  ledger.set_gpu_power(Time::from_seconds(0.5), std::vector<GpuIndex>{0}, 50);
  ledger.set_gpu_power(Time::from_seconds(2.25), std::vector<GpuIndex>{1}, 30);
  ledger.close(Time::from_seconds(4));

  // Facility interval means by hand: [0,1) 0.5*120 + 0.5*160 = 140; [1,2) 160; [2,3) 0.25*160 + 0.75*180 =
  // 175; [3,4) 180.
  REQUIRE(sink.f_it.size() == 4);
  CHECK(sink.f_it[0] == Approx(140));
  CHECK(sink.f_it[1] == Approx(160));
  CHECK(sink.f_it[2] == Approx(175));
  CHECK(sink.f_it[3] == Approx(180));
  CHECK(sink.f_facility[2] == Approx(175 * 1.5));
  CHECK(sink.f_energy[0] == Approx(210));
  CHECK(sink.f_energy[3] == Approx((140 + 160 + 175 + 180) * 1.5));
  CHECK(sink.f_start == std::vector<double>{0, 1, 2, 3});

  // Node interval means: [0,2) (0.5*120 + 1.5*160)/2 = 150; [2,4) (0.25*160 + 1.75*180)/2 = 177.5.
  REQUIRE(sink.n_power.size() == 2);
  CHECK(sink.n_power[0][0] == Approx(150));
  CHECK(sink.n_power[1][0] == Approx(177.5));

  // GPU energy: GPU0 10*0.5 + 50*3.5 = 180 J; GPU1 10*2.25 + 30*1.75 = 75 J.
  CHECK(ledger.gpu_energy_J() == Approx(255));
  CHECK(ledger.it_energy_J() == Approx(655));
  CHECK(ledger.facility_energy_J() == Approx(982.5));
  CHECK(ledger.peak_facility_W() == Approx(270));
  CHECK(ledger.peak_facility_sample_W() == Approx(270));
}

TEST_CASE("a node's load-following power adds its share of every GPU watt", "[ledger]") {
  // The example above with node_load_fraction 0.25: IT = 100 + 1.25 x GPUs. 125 W on [0, 0.5), 175 W on
  // [0.5, 2.25), 200 W on [2.25, 4); the GPUs' own energy is unchanged.
  fleetwatt::test::RecordingSink sink;
  LedgerConfig c = small_config();
  c.node_load_fraction = 0.25;
  PowerLedger ledger(c, &sink);
  ledger.set_gpu_power(Time::from_seconds(0.5), std::vector<GpuIndex>{0}, 50);
  ledger.set_gpu_power(Time::from_seconds(2.25), std::vector<GpuIndex>{1}, 30);
  ledger.close(Time::from_seconds(4));
  REQUIRE(sink.f_it.size() == 4);
  CHECK(sink.f_it[0] == Approx(150));  // 0.5 x 125 + 0.5 x 175
  CHECK(sink.f_it[1] == Approx(175));
  CHECK(sink.f_it[2] == Approx(193.75));  // 0.25 x 175 + 0.75 x 200
  CHECK(sink.f_it[3] == Approx(200));
  REQUIRE(sink.n_power.size() == 2);
  CHECK(sink.n_power[0][0] == Approx(162.5));  // (0.5 x 125 + 1.5 x 175) / 2
  CHECK(ledger.gpu_energy_J() == Approx(255));
  CHECK(ledger.it_energy_J() == Approx(4 * 100 + 1.25 * 255));
  CHECK(ledger.facility_energy_J() == Approx(1.5 * (4 * 100 + 1.25 * 255)));
}

TEST_CASE("the GPU change list starts with every GPU idle at time zero", "[ledger]") {
  fleetwatt::test::RecordingSink sink;
  PowerLedger ledger(small_config(), &sink);
  ledger.set_gpu_power(Time::from_seconds(1), std::vector<GpuIndex>{1}, 42);
  ledger.close(Time::from_seconds(2));
  using C = fleetwatt::test::RecordingSink::Change;
  CHECK(sink.changes == std::vector<C>{{0, 0, 10}, {0, 1, 10}, {1, 1, 42}});
}

TEST_CASE("a horizon that is not a multiple of the interval ends with a partial-interval mean", "[ledger]") {
  fleetwatt::test::RecordingSink sink;
  PowerLedger ledger(small_config(), &sink);
  ledger.set_gpu_power(Time::from_seconds(1.2), std::vector<GpuIndex>{0, 1}, 60);  // 120 -> 220 W
  ledger.close(Time::from_seconds(1.5));
  REQUIRE(sink.f_it.size() == 2);
  // [1, 1.5): 0.2 s at 120 W and 0.3 s at 220 W -> mean (24 + 66) / 0.5 = 180 W.
  CHECK(sink.f_it[1] == Approx(180));
  CHECK(sink.f_energy[1] == Approx((120 + 90) * 1.5));
  REQUIRE(sink.n_power.size() == 1);
  CHECK(sink.n_power[0][0] == Approx((120 * 1.2 + 220 * 0.3) / 1.5));
}

TEST_CASE("a ledger refuses to go back in time or to change after closing", "[ledger]") {
  PowerLedger ledger(small_config());
  ledger.set_gpu_power(Time::from_seconds(2), std::vector<GpuIndex>{0}, 20);
  CHECK_THROWS_AS(ledger.set_gpu_power(Time::from_seconds(1), std::vector<GpuIndex>{0}, 20),
                  fleetwatt::InvariantError);
  ledger.close(Time::from_seconds(3));
  CHECK_THROWS_AS(ledger.set_gpu_power(Time::from_seconds(4), std::vector<GpuIndex>{0}, 20),
                  fleetwatt::InvariantError);
}

TEST_CASE("compensated sums keep a year of small increments exact", "[ledger]") {
  // 31.5 million one-second increments of 0.1 J: a naive double sum drifts in the 7th digit.
  EnergySum s;
  double naive = 0;
  for (int i = 0; i < 31'536'000; ++i) {
    s.add(0.1);
    naive += 0.1;
  }
  CHECK(s.value() == Approx(3'153'600.0).epsilon(1e-14));
  CHECK(std::fabs(naive - 3'153'600.0) > std::fabs(s.value() - 3'153'600.0));
}

TEST_CASE("a node interval's means are right for nodes changed in it, before it and never", "[ledger]") {
  // Three one-GPU nodes, base 100 W, GPU idle 10 W, node intervals of 2 s, closed at 7 s (a partial last
  // interval [6, 7)). Node 0 changes once in [0, 2) and holds; node 1 never changes; node 2 changes in
  // [0, 2), holds through [2, 4), and changes twice in [4, 6) (once exactly at its start).
  LedgerConfig c = small_config();
  c.nodes = 3;
  c.gpus_per_node = 1;
  fleetwatt::test::RecordingSink sink;
  PowerLedger ledger(c, &sink);
  ledger.set_gpu_power(Time::from_seconds(0.5), std::vector<GpuIndex>{0}, 50);  // node 0: 110 -> 150 W
  ledger.set_gpu_power(Time::from_seconds(1.5), std::vector<GpuIndex>{2}, 30);  // node 2: 110 -> 130 W
  ledger.set_gpu_power(Time::from_seconds(4.0), std::vector<GpuIndex>{2}, 90);  // node 2: 130 -> 190 W
  ledger.set_gpu_power(Time::from_seconds(5.0), std::vector<GpuIndex>{2}, 10);  // node 2: 190 -> 110 W
  ledger.close(Time::from_seconds(7));

  REQUIRE(sink.n_start.size() == 4);
  const auto node = [&](std::size_t interval, std::size_t n) { return sink.n_power.at(interval).at(n); };
  // [0, 2): node 0 0.5 s at 110 W and 1.5 s at 150 W = 140; node 2 1.5 s at 110 and 0.5 s at 130 = 115.
  CHECK(node(0, 0) == Approx(140));
  CHECK(node(0, 1) == Approx(110));
  CHECK(node(0, 2) == Approx(115));
  // [2, 4): no change anywhere; each node at the power it ended [0, 2) with.
  CHECK(node(1, 0) == Approx(150));
  CHECK(node(1, 1) == Approx(110));
  CHECK(node(1, 2) == Approx(130));
  // [4, 6): node 2 1 s at 190 W and 1 s at 110 W = 150.
  CHECK(node(2, 0) == Approx(150));
  CHECK(node(2, 1) == Approx(110));
  CHECK(node(2, 2) == Approx(150));
  // [6, 7): the partial interval, every node at its last power.
  CHECK(sink.n_start[3] == Approx(6));
  CHECK(node(3, 0) == Approx(150));
  CHECK(node(3, 1) == Approx(110));
  CHECK(node(3, 2) == Approx(110));
}

namespace {
/// 3 servers of 4 GPUs idle at 0.1 W (not a binary fraction: a sum of doubles in event order drifts).
LedgerConfig three_servers(bool per_gpu) {
  LedgerConfig c;
  c.nodes = 3;
  c.gpus_per_node = 4;
  c.gpu_idle_W = 0.1;
  c.node_base_W = 100;
  c.node_load_fraction = 0.25;
  c.facility_interval = Duration::from_seconds(1);
  c.node_interval = Duration::from_seconds(10);
  c.per_gpu = per_gpu;
  return c;
}
/// A server's power beside its hand sum: 4 GPUs' powers rounded to 2^-36 W (7.3e-12 W each), x 1.25.
constexpr double kRounding_W = 4 * 0x1p-37 * 1.25;
}  // namespace

TEST_CASE(
    "server and fleet GPU sums are exact: changes that come back leave the power where it was, bit for bit",
    "[ledger]") {
  // 3,000 changes over ill-rounding powers, in groupings that cut servers differently, then every GPU back to
  // 0.1 W: a sum of doubles in event order ends a few ulp away; integer sums end exactly where they began.
  for (const bool per_gpu : {true, false}) {
    PowerLedger ledger(three_servers(per_gpu));
    const double it0 = ledger.it_power_W(), node0 = ledger.node_power_W(1);
    CHECK(node0 == Approx(100.0 + 1.25 * 0.4).epsilon(0).margin(kRounding_W));
    const std::vector<GpuIndex> a{1, 2, 3, 4, 5}, b{6, 7, 8, 9, 10, 11}, rest{0};
    std::vector<NodeRun> ra, rb, rr;
    ledger.node_runs(a, ra);
    ledger.node_runs(b, rb);
    ledger.node_runs(rest, rr);
    const double levels[] = {0.1, 312.7, 1e-3, 699.99999, 0.3, 45.1};
    double wa = 0.1, wb = 0.1;
    // The fleet's GPU sum as doubles added GPU by GPU in event order, for contrast.
    double by_doubles = 0.0;
    for (int g = 0; g < 12; ++g) by_doubles += 0.1;
    const double by_doubles0 = by_doubles;
    const auto add = [&by_doubles](std::size_t n, double from, double to) {
      for (std::size_t k = 0; k < n; ++k) by_doubles += to - from;
    };
    for (int i = 1; i <= 1000; ++i) {
      const double na = levels[i % 6], nb = levels[(i * 5 + 1) % 6];
      add(a.size(), wa, na);
      add(b.size(), wb, nb);
      add(1, i == 1 ? 0.1 : 7.7, 7.7);
      ledger.change_gpu_power(Time::from_seconds(i * 0.01), a, ra, wa, na);
      ledger.change_gpu_power(Time::from_seconds(i * 0.01), b, rb, wb, nb);
      ledger.change_gpu_power(Time::from_seconds(i * 0.01 + 0.005), rest, rr, i == 1 ? 0.1 : 7.7, 7.7);
      wa = na;
      wb = nb;
    }
    ledger.change_gpu_power(Time::from_seconds(11), a, ra, wa, 0.1);
    ledger.change_gpu_power(Time::from_seconds(11), b, rb, wb, 0.1);
    ledger.change_gpu_power(Time::from_seconds(11), rest, rr, 7.7, 0.1);
    add(a.size(), wa, 0.1);
    add(b.size(), wb, 0.1);
    add(1, 7.7, 0.1);
    CHECK(by_doubles != by_doubles0);  // what the integer sums avoid
    CHECK(ledger.it_power_W() == it0);
    CHECK(ledger.node_power_W(1) == node0);
    // A server's power in the meantime is its base plus 1.25 x the exact sum of its GPUs: server 0 with
    // GPU 0 at 7.7 W and 1-3 at 45.1 W.
    ledger.change_gpu_power(Time::from_seconds(12), a, ra, 0.1, 45.1);
    ledger.change_gpu_power(Time::from_seconds(12), rest, rr, 0.1, 7.7);
    CHECK(ledger.node_power_W(0) == Approx(100.0 + 1.25 * (7.7 + 3 * 45.1)).epsilon(0).margin(kRounding_W));
    ledger.close(Time::from_seconds(13));
  }
}

TEST_CASE(
    "a ledger without per-GPU power changes servers only, and one with it checks what each change starts "
    "from",
    "[ledger]") {
  PowerLedger lean(three_servers(false));
  CHECK_FALSE(lean.per_gpu());
  const std::vector<GpuIndex> gpus{2, 3, 4, 8};
  std::vector<NodeRun> runs;
  lean.node_runs(gpus, runs);
  REQUIRE(runs.size() == 3);  // GPUs 2-3 on server 0, 4 on 1, 8 on 2
  CHECK((runs[0].node == 0 && runs[0].count == 2 && runs[1].node == 1 && runs[1].count == 1 &&
         runs[2].node == 2 && runs[2].count == 1));
  lean.change_gpu_power(Time::from_seconds(1), gpus, runs, 0.1, 300.0);
  CHECK(lean.node_power_W(0) == Approx(100.0 + 1.25 * (2 * 0.1 + 2 * 300.0)).epsilon(0).margin(kRounding_W));
  CHECK_THROWS_AS(lean.gpu_power_W(2), fleetwatt::InvariantError);
  CHECK_THROWS_AS(lean.set_gpu_power(Time::from_seconds(2), gpus, 5.0), fleetwatt::InvariantError);
  // Runs that do not cover the change's GPUs are a caller's bug.
  CHECK_THROWS_AS(lean.change_gpu_power(Time::from_seconds(2), gpus, std::span(runs).first(2), 300.0, 5.0),
                  fleetwatt::InvariantError);

  PowerLedger kept(three_servers(true));
  kept.change_gpu_power(Time::from_seconds(1), gpus, {}, 0.1, 300.0);  // runs cut by the ledger
  CHECK(kept.gpu_power_W(2) == 300.0);
  CHECK(kept.gpu_power_W(1) == 0.1);
  CHECK(kept.node_power_W(0) == lean.node_power_W(0));
  // GPU 2 draws 300 W, not 0.1 W.
  CHECK_THROWS_AS(kept.change_gpu_power(Time::from_seconds(2), std::vector<GpuIndex>{2}, {}, 0.1, 5.0),
                  fleetwatt::InvariantError);
}

TEST_CASE(
    "a sink that keeps GPU changes makes the ledger keep each GPU's power, and one that does not leaves it "
    "off",
    "[ledger]") {
  struct Quiet final : PowerSink {
    void facility_sample(Time, double, double, double) override {}
    void node_samples(Time, std::span<const double>) override {}
    void gpu_change(Time, std::span<const GpuIndex>, double) override {}
    [[nodiscard]] bool wants_gpu_changes() const override { return false; }
  };
  fleetwatt::test::RecordingSink keeps;
  PowerLedger a(three_servers(false), &keeps);
  CHECK(a.per_gpu());
  CHECK(keeps.changes.size() == 12);  // the initial state: every GPU idle at zero
  Quiet quiet;
  PowerLedger b(three_servers(false), &quiet);
  CHECK_FALSE(b.per_gpu());
  // Per-GPU power cannot start once GPUs have changed: there is nothing to start it from.
  PowerLedger c(three_servers(false));
  c.change_gpu_power(Time::zero(), std::vector<GpuIndex>{0}, {}, 0.1, 50.0);
  CHECK_THROWS_AS(c.attach(&keeps), fleetwatt::InvariantError);
}
