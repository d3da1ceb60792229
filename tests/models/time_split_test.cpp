// A predicted time re-timed by a machine's GPU and host factors, and those factors fitted on its runs: the
// knee and the shrinkage against closed forms, a machine's two speeds recovered from runs of both kinds,
// and few-shot calibration re-timing every row of a machine by them.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "fleetwatt/models/few_shot.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/hardware/time_split.hpp"

using namespace fleetwatt::models;

TEST_CASE("a split's time: the GPU's work and the launches overlap at the soft knee, the rest adds",
          "[time-split]") {
  // Work and launches of 0.1 s each: (0.1^4 + 0.1^4)^(1/4) = 0.1 x 2^(1/4); 10 steps at stretch 1.5 with
  // 0.02 s more per step, and 3 s of epoch end.
  const TimeSplit s{10.0, 0.1, 0.1, 1.5, 0.02, 3.0};
  CHECK(s.time_s(1.0, 1.0) == Approx(10.0 * (0.1 * std::pow(2.0, 0.25) * 1.5 + 0.02) + 3.0));
  // A host three times as slow sets the step almost alone: (0.1^4 + 0.3^4)^(1/4) = 0.1 x 82^(1/4).
  CHECK(s.time_s(1.0, 3.0) == Approx(10.0 * (0.1 * std::pow(82.0, 0.25) * 1.5 + 0.02) + 3.0));
  CHECK(s.one_step().time_s(1.0, 1.0) == Approx(0.1 * std::pow(2.0, 0.25) * 1.5 + 0.02));
  CHECK_FALSE(TimeSplit{}.known());
  // The work alone re-timed: (82 / 2)^(1/4) as long with that host; 1 with the datasheet's speeds or no
  // split.
  CHECK(s.work_scale(1.0, 3.0) == Approx(std::pow(41.0, 0.25)));
  CHECK(s.work_scale(1.0, 1.0) == 1.0);
  CHECK(TimeSplit{}.work_scale(2.0, 3.0) == 1.0);
}

TEST_CASE("a roofline step's split: its bound, launches and stretch, the rest of the step and the end",
          "[time-split]") {
  RooflineStep r;
  r.bound_s = 0.08, r.launch_s = 0.05, r.stretch = 1.2, r.work_s = 0.11;
  // A step of 0.15 s holds 0.04 s of loading stall beyond its work; 20 steps and 2 s of epoch end.
  const TimeSplit s = time_split(r, 20.0, 0.15, 2.0);
  CHECK(s.steps == 20.0);
  CHECK(s.gpu_s == 0.08);
  CHECK(s.host_s == 0.05);
  CHECK(s.stretch == 1.2);
  CHECK(s.other_s == Approx(0.04));
  CHECK(s.fixed_s == 2.0);
}

TEST_CASE("a split's busy share: the GPU's stretched work over the whole time", "[time-split]") {
  // 10 steps of 0.02 s GPU work under 0.01 s of launches, stretched 1.5x, 0.005 s more a step, 2 s of end:
  // the step's work and launches overlap to 0.02 x (1 + 0.5^4)^(1/4) = 0.0203055 s, so the time is
  // 10 x (0.0203055 x 1.5 + 0.005) + 2 = 2.354583 s, of which the GPU runs 10 x 0.02 x 1.5 = 0.3 s.
  const TimeSplit s{10.0, 0.02, 0.01, 1.5, 0.005, 2.0};
  CHECK(s.time_s(1.0, 1.0) == Approx(2.354583).epsilon(1e-6));
  CHECK(s.busy_share() == Approx(0.3 / 2.354583).epsilon(1e-6));
  // A host-bound step with no end: the GPU's share is its work over the launches' (softened) time.
  const TimeSplit host{5.0, 0.001, 0.004, 1.0, 0.0, 0.0};
  CHECK(host.busy_share() == Approx(0.001 / (0.004 * std::pow(1.0 + std::pow(0.25, 4), 0.25))));
  CHECK(TimeSplit{}.busy_share() == 0.0);
}

TEST_CASE("a machine's factors: both speeds recovered from runs of both kinds, the prior holding the rest",
          "[time-split]") {
  // Two GPU-bound and two host-bound runs measured exactly at GPU x 0.6 and host x 1.8: a negligible prior
  // recovers both.
  const std::vector<TimeSplit> splits{{100, 0.20, 0.02, 1.0, 0.0, 4.0},
                                      {50, 0.50, 0.03, 1.0, 0.001, 4.0},
                                      {1000, 0.0002, 0.004, 1.0, 0.0, 4.0},
                                      {400, 0.001, 0.01, 1.0, 0.0, 4.0}};
  std::vector<SplitRun> runs;
  for (const TimeSplit& s : splits) runs.push_back({s, s.time_s(0.6, 1.8)});
  const MachineFactors exact = fit_machine_factors(runs, 1e-9);
  CHECK(exact.gpu == Approx(0.6).epsilon(1e-3));
  CHECK(exact.host == Approx(1.8).epsilon(1e-3));
  // Runs the GPU's work alone sets (no launches, no fixed time) speak of the GPU only: n (ln r - ln g)^2 +
  // prior ln^2 g is least at ln g = n ln r / (n + prior), and the host stays at 1.
  std::vector<SplitRun> gpu_bound;
  for (const double steps : {10.0, 20.0, 40.0})
    gpu_bound.push_back({{steps, 1.0, 0.0, 1.0, 0.0, 0.0}, 0.7 * steps});
  const MachineFactors shrunk = fit_machine_factors(gpu_bound, 1.0);
  CHECK(std::log(shrunk.gpu) == Approx(3.0 * std::log(0.7) / 4.0).margin(2e-4));
  CHECK(shrunk.host == Approx(1.0).margin(2e-4));
  // No run with a split: the datasheet's speeds.
  CHECK(fit_machine_factors({}, 1.0) == MachineFactors{});
  CHECK(fit_machine_factors({{TimeSplit{}, 5.0}}, 1.0) == MachineFactors{});
}

namespace {

/// A row of machine ("zeus", `gpu`), workload `workload`, at `batch`: its zero-shot split `split` and an
/// epoch measured at the machine's GPU x 0.5 and host x 2.
void add_row(MeasurementSet& set, ValidationReport& zero, const std::string& gpu, const std::string& workload,
             double batch, const TimeSplit& split) {
  Measurement m;
  m.source = "zeus";
  m.gpu = gpu;
  m.workload = workload;
  m.tdp_W = 300.0;
  m.job.meta.batch_size = static_cast<std::uint32_t>(batch);
  m.epoch_s = split.time_s(0.5, 2.0);
  m.avg_power_W = 150.0;
  set.rows.push_back(m);
  RowComparison c;
  c.row = set.rows.size() - 1;
  c.measured_s = m.epoch_s;
  c.predicted_s = split.time_s(1.0, 1.0);
  c.measured_W = c.predicted_W = 150.0;
  c.split = split;
  zero.compared.push_back(c);
}

}  // namespace

TEST_CASE("few-shot re-times every row of a machine by the factors its calibration runs fit", "[few-shot]") {
  // Two machines alike, each with a host-bound workload (a small model's launches set its step up to large
  // batches) and a GPU-bound one, swept over batches. A whole-epoch factor from the middle batch cannot
  // follow the host-bound workload from its launch-bound to its work-bound batches; the machine's two
  // factors can: with a negligible prior every row is predicted exactly.
  MeasurementSet set;
  ValidationReport zero;
  for (const char* gpu : {"x", "y"})
    for (const double batch : {8.0, 64.0, 512.0, 4096.0}) {
      const double steps = 500000.0 / batch;
      add_row(set, zero, gpu, "small", batch, {steps, 2e-6 * batch, 2e-3, 1.0, 0.0, 0.4});
      add_row(set, zero, gpu, "large", batch, {steps, 4e-4 * batch, 5e-3, 1.0, 0.0, 0.4});
    }
  const FewShotReport exact = few_shot(set, zero, 1, 0.8, 1e-9);
  REQUIRE(exact.machine_factors.size() == 2);
  CHECK(exact.machine_factors.at({"zeus", "x"}).gpu == Approx(0.5).epsilon(1e-3));
  CHECK(exact.machine_factors.at({"zeus", "x"}).host == Approx(2.0).epsilon(1e-3));
  CHECK(exact.report.all.time_mre < 1e-3);
  // Without machine factors the middle batch's whole-epoch factor misses the host-bound batches.
  const FewShotReport whole = few_shot(set, zero, 1, 0.8, std::numeric_limits<double>::infinity());
  CHECK(whole.machine_factors.empty());
  CHECK(whole.report.all.time_mre > 0.1);
}
