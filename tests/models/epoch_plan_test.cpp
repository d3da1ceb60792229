// Epoch plans: the parts a predictor returns, their square-wave view, and the datasheet predictor's parts
// worked by hand.
#include <catch2/catch.hpp>

#include "fleetwatt/jobs/job_classes.hpp"
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"
#include "fleetwatt/models/predictors/table_predictor.hpp"

using namespace fleetwatt::models;
using fleetwatt::jobs::JobSpec;

TEST_CASE("A plan's peak is its steps at their time-weighted power and its valley the checkpoint") {
  EpochPlan p;
  p[PartKind::compute] = {90, 300};
  p[PartKind::comm] = {6, 120};
  p[PartKind::io] = {4, 60};
  p[PartKind::checkpoint] = {10, 70};
  const auto v = p.profile();
  CHECK(v.peak_s == 100);
  CHECK(v.peak_W == Approx((90 * 300 + 6 * 120 + 4 * 60) / 100.0));  // 279.6 W
  CHECK(v.valley_s == 10);
  CHECK(v.valley_W == 70);
  CHECK(p.epoch_s() == 110);
  CHECK(p.epoch_energy_J() == Approx(v.epoch_energy_J()));
  // A measured square wave round-trips exactly.
  const fleetwatt::jobs::PhaseProfile measured{291.06, 182.58, 62.23, 6.41};
  CHECK(EpochPlan::from_profile(measured).profile() == measured);
}

TEST_CASE("Class jobs get the class table's metadata, so their traffic is known") {
  JobSpec j;
  j.job_class = "bert";
  const auto plan = TablePredictor{}.plan(j, find_gpu("a800"));
  CHECK(plan.model.model == "bert-base");
  CHECK(plan.model.params == 110e6);
  CHECK(plan.model.input_size == 128);  // one sequence length everywhere (it was 512 in the network model)
  CHECK(plan.model.dataset_samples == 100000);
  CHECK(plan[PartKind::compute].s == Approx(169.25));
  CHECK(plan[PartKind::checkpoint].W == Approx(67.01));
}

TEST_CASE("The datasheet plan's parts follow the step model", "[models][datasheet]") {
  // GPT-2 medium on 16 A100s (batch 64): the parts add up to the epoch and the steps' exposed all-reduce
  // is the training-I/O arithmetic on the ring: 2 (n - 1) / n x params x 4 B over NVLink, less what hides
  // behind the backward pass.
  JobSpec j;
  j.meta.model = "gpt2-medium";
  j.meta.batch_size = 64;
  j.meta.dataset_samples = 6400;
  j.n_gpus = 16;
  const GpuHardware gpu = find_gpu("a100-sxm-80gb");
  const DatasheetPredictor d;
  const StepBreakdown s = d.explain(j, gpu);
  const auto& plan = s.plan;
  CHECK(s.steps_per_epoch == 100);
  CHECK(plan.epoch_s() == Approx(s.profile.epoch_s()));
  CHECK(plan[PartKind::compute].s == Approx(100 * s.roofline.work_s));
  const double ring = 2.0 * 15 / 16 * s.model.params * 4 / gpu.nvlink_bw_Bps;
  const double hidden = std::min(0.7 * ring, 2.0 / 3 * s.roofline.work_s);
  CHECK(plan[PartKind::comm].s == Approx(100 * (ring - hidden)));
  CHECK(plan[PartKind::comm].s > 0);
  // Between idle and compute power: idle + 0.3 (compute - idle).
  CHECK(plan[PartKind::comm].W == Approx(gpu.idle_W + 0.3 * (plan[PartKind::compute].W - gpu.idle_W)));
  // The traffic comes from the zoo's figures the prediction used.
  CHECK(plan.model.params == s.model.params);
  CHECK(plan.model.params > 3e8);
}
