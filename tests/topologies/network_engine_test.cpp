// The engine with a [topology]: a job's epoch = compute + exposed communication (+ I/O), each at its power
// level; the network's power in IT energy; packed versus spread placement of the shipped scenarios.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "fleetwatt/runs/engine_setup.hpp"
#include "fleetwatt/runs/run_assembly.hpp"
#include "fleetwatt/runs/scenario_loader.hpp"
#include "fleetwatt/sim/engine/engine.hpp"
#include "fleetwatt/sim/fleet/network_model.hpp"
#include "fleetwatt/topologies/graph/graph_io.hpp"
#include "test_support.hpp"

using namespace fleetwatt;

namespace {

// The scenario prepared and run as `fleetwatt run` does.
struct Run : runs::PreparedRun {
  std::unique_ptr<sim::Engine> engine;
};

Run run(const runs::Scenario& s) {
  Run r;
  static_cast<runs::PreparedRun&>(r) = runs::prepare_run(s);
  r.engine = runs::make_engine(r);
  r.engine->run();
  return r;
}

// Two one-GPU servers under one leaf switch (and one spine), no storage. One job: explicit phases (peak 300 W
// for 100 s, valley 80 W for 10 s), 1e9 parameters in fp32 (S = 4 GB all-reduced per step), 100 steps.
const char* kTwoServers = R"(
[fleet]
nodes = {}
gpus_per_node = 1
gpu = "a800"
gpu_idle_w = 60.0
node_base_w = 0.0
[topology]
kind = "leaf_spine"
hosts_per_leaf = 2
spines = 1
nic_gbps = 400
pcie_gbps = 256
link_latency_us = 1
alpha_us = 5
comm_overlap = 0.7
storage_servers = 0
{}
[workload]
horizon_s = 1000
)";
const char* kJob = R"([[workload.jobs]]
n_gpus = 2
epochs = 2
peak_w = 300.0
peak_s = 100.0
valley_w = 80.0
valley_s = 10.0
params = 1e9
batch_size = 64
dataset_samples = 6400
)";

/// The scenario with `nodes` servers, extra [topology] lines and the job.
std::string with(const char* extra, int nodes = 2) {
  return fmt::format(fmt::runtime(kTwoServers), nodes, extra) + kJob;
}

/// Four one-GPU servers, two per leaf, 2:1 oversubscribed, with a second job like the first and `tail`
/// (scheduler lines).
std::string two_jobs_spread(const std::string& tail) {
  return with("oversubscription = 2.0", 4) + kJob + tail;
}

/// Exposed communication per epoch of one of these jobs whose ring runs at B bytes/s: 100 steps of a 4 GB
/// all-reduce over two hops (alpha 5 us + 12 us path latency each way), 70 % of it (at most the 2/3 s of
/// backward compute) hidden.
double exposed(double B) {
  const double S = 4e9, lat = 2 * (5e-6 + 12e-6);
  const double t = S / B + lat;
  return 100 * (t - std::min(0.7 * t, 2.0 / 3.0));
}

}  // namespace

TEST_CASE("an epoch's peak is compute plus the exposed part of the ring all-reduce") {
  const auto r = run(runs::parse_scenario(with(""), "two.toml"));
  const auto& job = r.engine->jobs().at(0);
  REQUIRE(job.state == sim::JobState::finished);
  // Ring all-reduce over p = 2 GPUs: 2(p-1)/p * S / B + 2(p-1)(alpha + path latency), B = PCIe 32 GB/s (the
  // narrowest link), path GPU-PCIe-NIC-leaf-NIC-PCIe-GPU = 2 + 2 + 1 + 1 + 2 + 2 = 10 us.
  const double S = 4e9, B = 32e9, allreduce = S / B + 2 * (5e-6 + 10e-6);
  // Per step: compute 1 s, backward 2/3 s; at most 70 % of the all-reduce hides behind it.
  const double exposed_per_step = allreduce - std::min(0.7 * allreduce, 2.0 / 3.0);
  const double comm = 100 * exposed_per_step;
  CHECK(job.parts.comm_s == Approx(2 * comm));
  CHECK(job.parts.compute_s == Approx(2 * 100.0));
  CHECK(job.parts.io_s == 0.0);
  CHECK(job.parts.checkpoint_s == Approx(2 * 10.0));  // no storage: the valley's 10 s, nothing to write
  CHECK((job.end - job.start).seconds() == Approx(2 * (100 + comm + 10)).epsilon(1e-9));
  // Exposed communication at idle + 30 % of the way to peak: 60 + 0.3 * 240 = 132 W.
  const double comm_W = 60 + 0.3 * (300 - 60);
  CHECK(job.parts.comm_J == Approx(2 * 2 * comm_W * comm));
  CHECK(job.energy_J == Approx(2 * 2 * (300 * 100 + comm_W * comm + 80 * 10)).epsilon(1e-6));
}

TEST_CASE("the network's idle and active power are part of IT energy") {
  const auto with_net = run(runs::parse_scenario(with(""), "two.toml"));
  const auto& job = with_net.engine->jobs().at(0);
  const double busy_s = (job.end - job.start).seconds();
  // 1 leaf + 1 spine at 250 W, the leaf-spine link and two NIC links at 2 x 10 W idle, two NICs at 15 W;
  // while the job runs its ring keeps both NIC links (+2 x 3 W each) and both NICs (+8 W each) active.
  const double idle_W = 2 * 250.0 + 3 * 20.0 + 2 * 15.0;
  const double active_W = 2 * 6.0 + 2 * 8.0;
  const double network_J = idle_W * 1000 + active_W * busy_s;
  CHECK(with_net.engine->ledger().it_energy_J() - with_net.engine->ledger().gpu_energy_J() ==
        Approx(network_J).epsilon(1e-9));
}

TEST_CASE("rings of two jobs sharing a saturated link stretch both jobs' epochs") {
  // Four one-GPU servers, two per leaf, 2:1 oversubscribed: each leaf's uplink carries 2 x 50 / 2 = 50 GB/s.
  // "spread" puts both 2-GPU jobs across the two leaves. Alone, a ring runs at min(PCIe 32, NIC 50,
  // uplink 50) = 32 GB/s; together the rings share the uplinks at 25 GB/s each. Shares are taken at epoch
  // starts: job 1's first epoch began before job 2 started (alone); every later epoch is shared.
  const auto r =
      run(runs::parse_scenario(two_jobs_spread("[scheduler]\nplacement = \"spread\"\n"), "four.toml"));
  const auto& jobs = r.engine->jobs();
  REQUIRE(jobs.size() == 2);
  CHECK(exposed(25e9) > exposed(32e9));
  CHECK(jobs[0].parts.comm_s == Approx(exposed(32e9) + exposed(25e9)));
  CHECK(jobs[1].parts.comm_s == Approx(2 * exposed(25e9)));
}

TEST_CASE("the shipped spread scenario shows longer epochs, more communication and more energy than packed") {
  const auto dir = fleetwatt::test::source_dir() / "examples" / "scenarios";
  const auto packed = run(runs::load_scenario(dir / "placement-packed.toml"));
  const auto spread = run(runs::load_scenario(dir / "placement-spread.toml"));
  const auto& pj = packed.engine->jobs();
  const auto& sj = spread.engine->jobs();
  REQUIRE(pj.size() == sj.size());
  double p_energy = 0, s_energy = 0;
  for (std::size_t i = 0; i < pj.size(); ++i) {
    REQUIRE(pj[i].state == sim::JobState::finished);
    REQUIRE(sj[i].state == sim::JobState::finished);
    CHECK(sj[i].parts.compute_s == Approx(pj[i].parts.compute_s));  // same compute either way
    CHECK(sj[i].parts.comm_s > 2 * pj[i].parts.comm_s);
    CHECK((sj[i].end - sj[i].start) > (pj[i].end - pj[i].start));
    p_energy += pj[i].energy_J;
    s_energy += sj[i].energy_J;
  }
  CHECK(s_energy > p_energy);
  CHECK(spread.engine->summary().it_energy_J > packed.engine->summary().it_energy_J);
}

TEST_CASE("a bad [topology] key in a scenario is a ConfigError at its line") {
  const auto s = runs::parse_scenario(with("fabric = \"mesh\""), "bad.toml");
  CHECK_THROWS_WITH(runs::engine_setup(s), Catch::Contains("bad.toml:") && Catch::Contains("fabric"));
}

TEST_CASE(
    "fleetwatt topology describes the default fleet's fabric, writes DOT, and refuses a scenario without "
    "one") {
  const auto fw = fleetwatt::test::fleetwatt_binary().string();
  const auto day = (fleetwatt::test::source_dir() / "examples" / "scenarios" / "day-fleet.toml").string();
  // 1000 servers need a k = 16 fat-tree: (k/2)^2 = 64 core and k^2/2 = 128 aggregation and 128 edge switches.
  const auto r = fleetwatt::test::run_command(fw + " topology " + day);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("core        64") != std::string::npos);
  CHECK(r.out.find("spine       128") != std::string::npos);
  CHECK(r.out.find("gpu         4000") != std::string::npos);
  fleetwatt::test::TempDir dir;
  const auto dot = dir / "fleet.dot";
  CHECK(fleetwatt::test::run_command(fw + " topology " + day + " --dot " + dot.string()).exit_code == 0);
  CHECK(topologies::read_topology_file(dot).gpus().size() == 4000);
  const auto plain = dir.write("plain.toml",
                               "[workload]\n[[workload.jobs]]\nn_gpus = 1\npeak_w = 1.0\npeak_s = 1.0\n"
                               "valley_w = 1.0\nvalley_s = 1.0\n");
  const auto bad = fleetwatt::test::run_command(fw + " topology " + plain.string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("no [topology] section") != std::string::npos);
}

TEST_CASE("a paused job's flows leave the links: the other ring runs alone meanwhile") {
  // The two-job spread scenario above, with a demand-response event from 50 s to 500 s whose target (1,900 W:
  // idle GPUs 240 W, the network about 1 kW, each job about 475 W more) pauses job 2, the later start.
  // Job 1's second epoch begins at about 114 s while job 2 is paused: its ring has the uplinks to itself
  // (32 GB/s) instead of sharing them (25 GB/s). Job 2's first epoch was shared; its second runs after job
  // 1 has finished, alone.
  const auto r = run(
      runs::parse_scenario(two_jobs_spread("[scheduler]\npolicy = \"dr\"\nplacement = \"spread\"\n"
                                           "[scheduler.dr]\nstart_s = 50\nend_s = 500\ntarget_w = 1900\n"),
                           "four.toml"));
  const auto& jobs = r.engine->jobs();
  REQUIRE(jobs.size() == 2);
  REQUIRE(jobs[0].controls.paused_gpu_seconds == 0.0);
  REQUIRE(jobs[1].controls.paused_gpu_seconds == Approx(2 * 450.0));
  CHECK(jobs[0].parts.comm_s == Approx(2 * exposed(32e9)));
  CHECK(jobs[1].parts.comm_s == Approx(exposed(25e9) + exposed(32e9)));
}

TEST_CASE("a failed job's flows leave the network while it restarts and return with its epoch",
          "[failures]") {
  // The two-server job above, interrupted 50 s into its first peak (rate 0: only this scripted failure):
  // 60 s idle, then a 30 s reload (longer than its 10 s checkpoint), then both epochs again from the start.
  auto s = runs::parse_scenario(
      with("") +
          "[failures]\nenabled = true\nrate_per_gpu_hour = 0\nrestart_delay_s = 60\nrestart_ramp_s = 30\n",
      "two.toml");
  Run r;
  static_cast<runs::PreparedRun&>(r) = runs::prepare_run(s);
  r.engine = runs::make_engine(r);
  r.engine->interrupt_at(0, sim::Time::from_seconds(50));
  r.engine->run();
  const auto& job = r.engine->jobs().at(0);
  REQUIRE(job.state == sim::JobState::finished);
  const double S = 4e9, B = 32e9, allreduce = S / B + 2 * (5e-6 + 10e-6);
  const double comm = 100 * (allreduce - std::min(0.7 * allreduce, 2.0 / 3.0));
  // The 50 s before the failure were compute (the epoch's peak is compute + comm at their shares, and 50 s
  // is inside it): lost, then 2 whole epochs. End = 50 + 90 + 2 x (100 + comm + 10).
  CHECK(job.failures.interruptions == 1);
  CHECK(job.end.seconds() == Approx(50 + 90 + 2 * (100 + comm + 10)).epsilon(1e-9));
  // The ring's links and NICs are active while the job runs epochs, idle through its 90 s restart.
  const double idle_W = 2 * 250.0 + 3 * 20.0 + 2 * 15.0;
  const double active_W = 2 * 6.0 + 2 * 8.0;
  const double busy_s = (job.end - job.start).seconds() - 90.0;
  CHECK(r.engine->ledger().it_energy_J() - r.engine->ledger().gpu_energy_J() ==
        Approx(idle_W * 1000 + active_W * busy_s).epsilon(1e-9));
}
