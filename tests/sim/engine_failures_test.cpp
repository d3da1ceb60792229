// Job interruptions ([failures]) through whole engine runs: a scripted interruption moves a job's end and
// energy by exactly what its restart and lost work cost (figures worked out by hand below), a long run at the
// Llama 3 rate counts interruptions inside the exact Poisson 95 % interval, runs repeat bit for bit, and a
// run with failures off, or on at rate 0, is the run without them.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim_test_support.hpp"

using fleetwatt::sim::Time;
using fleetwatt::test::make_run;
using fleetwatt::test::RecordingSink;
namespace test = fleetwatt::test;

namespace {
// Rate 0: only scripted interruptions. A restart idles 60 s, then reloads for 30 s (or the checkpoint time).
std::string with_failures(double ramp_s) {
  return test::kOneJobScenario +
         "[failures]\nenabled = true\nrate_per_gpu_hour = 0\nrestart_delay_s = 60\nrestart_ramp_s = " +
         std::to_string(ramp_s) + "\n";
}

// Smallest k with P(X <= k) >= p for X ~ Poisson(mu), summing the pmf from its mode outwards in logs (exact
// to rounding; mu in the hundreds overflows nothing).
long poisson_quantile(double mu, double p) {
  double cdf = 0.0;
  for (long k = 0;; ++k) {
    cdf += std::exp(static_cast<double>(k) * std::log(mu) - mu - std::lgamma(static_cast<double>(k) + 1.0));
    if (cdf >= p) return k;
  }
}
}  // namespace

TEST_CASE("without an interruption the job runs 330 s and uses 744 kJ", "[engine][failures]") {
  auto run = make_run(test::kOneJobScenario);
  run.engine->run();
  const auto& job = run.engine->jobs().front();
  CHECK(job.end.seconds() == 330.0);
  CHECK(job.energy_J == Approx(744000.0).epsilon(1e-12));
}

TEST_CASE("an interruption in a peak phase moves the end by delay + reload + lost work",
          "[engine][failures]") {
  auto run = make_run(with_failures(30));
  RecordingSink sink;
  run.engine->attach(&sink);
  // Epoch 2's peak runs [110, 210): at 150 the job has done 40 s of it, lost back to the checkpoint at 110.
  run.engine->interrupt_at(0, Time::from_seconds(150));
  run.engine->run();
  const auto& job = run.engine->jobs().front();
  // Idle [150, 210), reload [210, 240) (30 s > the 10 s checkpoint), epoch 2 again [240, 350), epoch 3
  // [350, 460): the end moves by 60 + 30 + 40 = 130 s.
  CHECK(job.end.seconds() == 460.0);
  CHECK(job.epochs_done == 3);
  CHECK(job.failures.interruptions == 1);
  CHECK(job.failures.lost_gpu_s == Approx(8 * 40.0));
  CHECK(job.failures.restart_s == Approx(90.0));
  // Energy: + the lost 40 s at 300 W (96,000 J) + 60 s idle at 50 W (24,000 J) + 30 s reload at the
  // checkpoint's 100 W (24,000 J), all on 8 GPUs: 744,000 + 144,000 = 888,000 J.
  CHECK(job.failures.lost_J == Approx(96000.0).epsilon(1e-12));
  CHECK(job.failures.restart_J == Approx(48000.0).epsilon(1e-12));
  CHECK(job.energy_J == Approx(888000.0).epsilon(1e-12));
  // The parts still add up to the job's energy, restarts included.
  CHECK(job.parts.compute_J + job.parts.comm_J + job.parts.io_J + job.parts.checkpoint_J +
            job.failures.restart_J ==
        Approx(job.energy_J).epsilon(1e-12));
  // The series shows it: 8 x 50 W while idle, 8 x 100 W while reloading, 8 x 300 W again after.
  REQUIRE(sink.f_it.size() == 1000);
  CHECK(sink.f_it[149] == Approx(2400.0));
  CHECK(sink.f_it[180] == Approx(400.0));
  CHECK(sink.f_it[225] == Approx(800.0));
  CHECK(sink.f_it[245] == Approx(2400.0));
  const auto& s = run.engine->summary();
  CHECK(s.failures);
  CHECK(s.interruptions == 1);
  CHECK(s.lost_gpu_s == Approx(320.0));
  CHECK(s.restart_gpu_s == Approx(8 * 90.0));
  CHECK(s.interruptions_expected == 0.0);  // rate 0
}

TEST_CASE("an interruption while the checkpoint is written loses the whole epoch", "[engine][failures]") {
  // Reload 5 s asked for, but reading the checkpoint back takes at least its 10 s write.
  auto run = make_run(with_failures(5));
  run.engine->interrupt_at(0, Time::from_seconds(105));
  run.engine->run();
  const auto& job = run.engine->jobs().front();
  // Epoch 1 ([0, 110)) had its 100 s peak and 5 s of checkpoint: all 105 s are redone. Idle [105, 165),
  // reload [165, 175), then 3 whole epochs: end 175 + 330 = 505 = 330 + 60 + 10 + 105.
  CHECK(job.end.seconds() == 505.0);
  CHECK(job.failures.lost_gpu_s == Approx(8 * 105.0));
  // Lost: 8 x (300 x 100 + 100 x 5) = 244,000 J; restart: 8 x (50 x 60 + 100 x 10) = 32,000 J.
  CHECK(job.failures.lost_J == Approx(244000.0).epsilon(1e-12));
  CHECK(job.failures.restart_J == Approx(32000.0).epsilon(1e-12));
  CHECK(job.energy_J == Approx(744000.0 + 244000.0 + 32000.0).epsilon(1e-12));
}

TEST_CASE("interruptions over 54 days at the Llama 3 rate lie in the Poisson 95 % interval",
          "[engine][failures]") {
  // Two 8,192-GPU jobs (2 x 1,024 servers of 8) that outlast the horizon: job 1 at the default rate
  // (419 / (54 x 24 x 16,384) per GPU-hour), job 2 at its own 4e-5 (about twice it). The Llama 3 snapshot:
  // 54 days.
  const double lambda = 419.0 / (54.0 * 24.0 * 16384.0);
  const std::string toml = R"(
seed = 3
[fleet]
nodes = 2048
gpus_per_node = 8
gpu = "h100-sxm"
node_base_w = 0
[workload]
horizon_s = 4665600
[[workload.jobs]]
n_gpus = 8192
epochs = 100000
peak_w = 600
peak_s = 3000
valley_w = 150
valley_s = 300
[[workload.jobs]]
n_gpus = 8192
epochs = 100000
peak_w = 600
peak_s = 3000
valley_w = 150
valley_s = 300
failure_rate_per_gpu_hour = 4e-5
[failures]
enabled = true
[output]
facility_interval_s = 60
node_interval_s = 3600
)";
  auto run = make_run(toml);
  run.engine->run();
  const auto& s = run.engine->summary();
  double expected_total = 0.0;
  for (const auto& job : run.engine->jobs()) {
    // Exposed GPU time, independently of the engine's count of it: the job holds its GPUs all 54 days and
    // is exposed whenever it is not restarting.
    const double exposed_gpu_h = 8192.0 * (4665600.0 - job.failures.restart_s) / 3600.0;
    const double rate = job.spec.id == 1 ? lambda : 4e-5;
    const double mu = rate * exposed_gpu_h;  // about 200 and 395
    expected_total += mu;
    const long lo = poisson_quantile(mu, 0.025), hi = poisson_quantile(mu, 0.975);
    INFO("job " << job.spec.id << ": " << job.failures.interruptions << " interruptions, mu " << mu
                << ", 95 % interval [" << lo << ", " << hi << "]");
    CHECK(job.failures.interruptions >= lo);
    CHECK(job.failures.interruptions <= hi);
    // Each restart: the 600 s delay, then the reload, max(120 s ramp, the 300 s checkpoint) = 300 s (the
    // horizon may cut the last one short).
    CHECK(job.failures.restart_s <= 900.0 * job.failures.interruptions + 1e-6);
    CHECK(job.failures.restart_s > 900.0 * (job.failures.interruptions - 1.0));
    CHECK(job.failures.exposure_gpu_s == Approx(exposed_gpu_h * 3600.0).epsilon(1e-9));
  }
  CHECK(s.interruptions_expected == Approx(expected_total).epsilon(1e-9));
  const long lo = poisson_quantile(expected_total, 0.025), hi = poisson_quantile(expected_total, 0.975);
  CHECK(static_cast<long>(s.interruptions) >= lo);
  CHECK(static_cast<long>(s.interruptions) <= hi);
  // Exposed all 54 days, job 1 would expect 419 / 2 = 209.5 and job 2 4e-5 x 8,192 x 1,296 h = 424.7: 634.2
  // in all, less the share of time their restarts take (900 s each: about 4 % and 7 %).
  CHECK(expected_total < 634.2);
  CHECK(expected_total > 0.9 * 634.2);
}

namespace {
// Four 8-GPU jobs on 4 servers for a week, failing often (0.01 per GPU-hour: one every 12.5 h per job).
const std::string kBusyWeek = R"(
seed = 5
[fleet]
nodes = 4
gpus_per_node = 8
gpu = "a800"
[workload]
horizon_s = 604800
[[workload.jobs]]
n_gpus = 8
epochs = 10000
class = "vit"
[[workload.jobs]]
n_gpus = 8
epochs = 10000
class = "bert"
[[workload.jobs]]
n_gpus = 8
epochs = 20
class = "vit"
[[workload.jobs]]
n_gpus = 8
epochs = 10000
class = "vit"
submit_s = 3600
[output]
facility_interval_s = 10
)";
const std::string kFailOften = "[failures]\nenabled = true\nrate_per_gpu_hour = 0.01\n";
}  // namespace

TEST_CASE("the same scenario and seed give the same interruptions, bit for bit", "[engine][failures]") {
  RecordingSink a, b;
  auto r1 = make_run(kBusyWeek + kFailOften);
  auto r2 = make_run(kBusyWeek + kFailOften);
  r1.engine->attach(&a);
  r2.engine->attach(&b);
  r1.engine->run();
  r2.engine->run();
  CHECK(r1.engine->summary().interruptions > 20);  // about 4 x 168 h / 12.5 h = 54 over the week
  CHECK(a.f_it == b.f_it);
  CHECK(a.changes == b.changes);
  for (std::size_t k = 0; k < r1.engine->jobs().size(); ++k) {
    const auto &x = r1.engine->jobs()[k], &y = r2.engine->jobs()[k];
    CHECK(x.failures.interruptions == y.failures.interruptions);
    CHECK(x.energy_J == y.energy_J);
    CHECK(x.end == y.end);
  }
  // Another seed draws other gaps.
  auto r3 = make_run("seed = 6\n" + kBusyWeek.substr(kBusyWeek.find("[fleet]")) + kFailOften);
  r3.engine->run();
  CHECK(r3.engine->jobs()[0].energy_J != r1.engine->jobs()[0].energy_J);
}

TEST_CASE("failures off, or on at rate 0, leave the run exactly as it was", "[engine][failures]") {
  RecordingSink none, off, zero;
  auto r0 = make_run(kBusyWeek);
  auto r1 = make_run(kBusyWeek + "[failures]\nenabled = false\nrate_per_gpu_hour = 0.01\n");
  auto r2 = make_run(kBusyWeek + "[failures]\nenabled = true\nrate_per_gpu_hour = 0\n");
  r0.engine->attach(&none);
  r1.engine->attach(&off);
  r2.engine->attach(&zero);
  r0.engine->run();
  r1.engine->run();
  r2.engine->run();
  CHECK(none.f_it == off.f_it);
  CHECK(none.f_it == zero.f_it);
  CHECK(none.changes == zero.changes);
  CHECK_FALSE(r1.engine->summary().failures);
  CHECK(r2.engine->summary().failures);
  CHECK(r2.engine->summary().interruptions == 0);
  for (std::size_t k = 0; k < r0.engine->jobs().size(); ++k) {
    CHECK(r0.engine->jobs()[k].energy_J == r2.engine->jobs()[k].energy_J);
    CHECK(r0.engine->jobs()[k].end == r2.engine->jobs()[k].end);
  }
  CHECK(r0.engine->summary().gpu_energy_J == r2.engine->summary().gpu_energy_J);
}

TEST_CASE("failures do not move the generated arrivals", "[engine][failures]") {
  const std::string gen = R"(
seed = 9
[fleet]
nodes = 8
gpus_per_node = 4
[workload]
horizon_s = 86400
warmup_s = 0
[workload.generator]
rate_per_hour = 6
[[workload.generator.mix]]
class = "vit"
n_gpus = [1, 4]
epochs = [5, 30]
)";
  auto r0 = make_run(gen);
  auto r1 = make_run(gen + "[failures]\nenabled = true\nrate_per_gpu_hour = 0.05\n");
  r0.engine->run();
  r1.engine->run();
  REQUIRE(r0.engine->jobs().size() == r1.engine->jobs().size());
  for (std::size_t k = 0; k < r0.engine->jobs().size(); ++k) {
    CHECK(r0.engine->jobs()[k].spec.submit_s == r1.engine->jobs()[k].spec.submit_s);
    CHECK(r0.engine->jobs()[k].spec.n_gpus == r1.engine->jobs()[k].spec.n_gpus);
    CHECK(r0.engine->jobs()[k].spec.epochs == r1.engine->jobs()[k].spec.epochs);
  }
  CHECK(r1.engine->summary().interruptions > 0);
}
