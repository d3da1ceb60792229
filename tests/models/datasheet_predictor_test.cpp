// The datasheet (default) predictor and the component predictor: the step model's equations by hand, the
// trends the measurements show, power limits, fallbacks and refusals.
#include "fleetwatt/models/predictors/datasheet_predictor.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

using namespace fleetwatt::models;
using fleetwatt::jobs::ConfigError;
using fleetwatt::jobs::JobSpec;
using fleetwatt::jobs::PartKind;
using fleetwatt::jobs::PhaseProfile;
using fleetwatt::jobs::Precision;

namespace {
JobSpec resnet_job(std::uint32_t batch, std::uint32_t gpus = 1) {
  JobSpec j;
  j.n_gpus = gpus;
  j.meta.model = "resnet50";
  j.meta.batch_size = batch;
  j.meta.dataset_samples = 1281167;
  j.meta.input_size = 224;
  j.meta.workers = 8;
  return j;
}

/// Stands in for the table predictor: a fixed profile for any class.
class FixedPredictor final : public PowerPredictor {
 public:
  std::string_view name() const override { return "fixed"; }
  EpochPlan plan(const JobSpec&, const GpuHardware&) const override {
    return EpochPlan::from_profile({300, 100, 80, 10});
  }
};
}  // namespace

TEST_CASE("The datasheet predictor assembles the epoch from the roofline step", "[models][datasheet]") {
  // ResNet-50, batch 256, one A800, the built-in fit: the step is the roofline step (no all-reduce on one
  // GPU), the compute part its work over every step, the valley the epoch's end plus a checkpoint of
  // 12 B/param at 1 GB/s, at the resident floor.
  const DatasheetPredictor p;
  const JobSpec job = resnet_job(256);
  const GpuHardware& gpu = gpu_preset("a800");
  const StepBreakdown s = p.explain(job, gpu);
  const ModelCount m = resolve_model(job.meta, job.class_origin);
  const RooflineStep r = roofline_step(m, step_inputs(job, m, 0.0, 8), gpu, default_predictor_fit().time,
                                       default_predictor_fit().power);
  CHECK(s.roofline.full_clock_s == Approx(r.full_clock_s));
  const auto& fitted = default_predictor_fit().time;
  CHECK(s.roofline.data_s ==
        Approx(256 * (3.0 * 224 * 224 * fitted.data_s_per_pixel + fitted.data_s_per_sample) / 8));
  CHECK(s.step_s == Approx(r.work_s + std::max(0.0, r.data_s - r.work_s)));
  const double steps = std::ceil(1281167.0 / 256);
  CHECK(s.plan[PartKind::compute].s == Approx(steps * r.work_s));
  CHECK(s.plan[PartKind::compute].W == Approx(r.power_W));
  CHECK(s.profile.valley_s == Approx(default_predictor_fit().time.epoch_end_s + 25557032.0 * 12 / 1e9));
  CHECK(s.profile.valley_W == Approx(r.floor_W));
  // The band is the calibrated one of a CNN on this GPU.
  const PredictionBand b = p.band(job, gpu);
  CHECK(b.level == Approx(default_predictor_fit().band.level));
  CHECK(b.time_low <= 1.0);
  CHECK(b.time_high >= 1.0);
}

TEST_CASE("Average power falls as the batch shrinks, as the measurements show", "[models][datasheet]") {
  // Zeus (NSDI'23): ShuffleNetV2 on an A40 draws ~89 W at batch 8 and ~219 W at batch 1024: the fixed
  // per-step overhead leaves the GPU idle between small steps.
  const DatasheetPredictor p;
  double last = 0.0;
  for (std::uint32_t b : {8u, 32u, 128u, 512u}) {
    const double w = p.predict(resnet_job(b), gpu_preset("a40")).mean_W();
    CHECK(w > last);
    last = w;
  }
  // Time per epoch falls with the batch (fewer steps, each with the same fixed overhead).
  CHECK(p.predict(resnet_job(8), gpu_preset("a40")).epoch_s() >
        p.predict(resnet_job(256), gpu_preset("a40")).epoch_s());
}

TEST_CASE("A power limit below the draw caps peak power and stretches compute", "[models][datasheet]") {
  DatasheetParams capped;
  capped.power_limit_W = 200.0;
  const PhaseProfile free = DatasheetPredictor().predict(resnet_job(256), gpu_preset("a800"));
  const PhaseProfile cap = DatasheetPredictor(capped).predict(resnet_job(256), gpu_preset("a800"));
  REQUIRE(free.peak_W > 200.0);
  CHECK(cap.peak_W <= 200.0 + 1e-6);
  CHECK(cap.peak_s > free.peak_s);
  CHECK(cap.valley_s == free.valley_s);
  // The one clock model says by how much (no loading stall or all-reduce on one GPU: the peak is compute).
  REQUIRE(DatasheetPredictor().explain(resnet_job(256), gpu_preset("a800")).io_s == 0.0);
  CHECK(cap.peak_s == Approx(free.peak_s * clock_model().stretch(free.peak_W, 200.0, 400.0)));
  // A limit above the draw changes nothing (batch 8: launch-bound, far below the TDP).
  capped.power_limit_W = 399.0;
  const PhaseProfile small = DatasheetPredictor().predict(resnet_job(8), gpu_preset("a800"));
  REQUIRE(small.peak_W < 399.0);
  CHECK(DatasheetPredictor(capped).predict(resnet_job(8), gpu_preset("a800")) == small);
}

TEST_CASE("Data parallelism splits the batch and adds an all-reduce", "[models][datasheet]") {
  const DatasheetPredictor p;
  const StepBreakdown one = p.explain(resnet_job(512, 1), gpu_preset("a800"));
  const StepBreakdown four = p.explain(resnet_job(512, 4), gpu_preset("a800"));
  CHECK(four.per_gpu_batch == 128.0);
  CHECK(four.steps_per_epoch == one.steps_per_epoch);
  CHECK(four.step_s < one.step_s);
  // Ring all-reduce: 2 (n-1)/n * params * 4 B over NVLink (200 GB/s per direction); 70 % of it hides behind
  // the backward pass (the training-I/O default, the network model's too), which lasts longer than that.
  const double ring = 2 * 0.75 * 25557032.0 * 4 / 200e9;
  const double work = four.roofline.work_s;
  REQUIRE(2.0 / 3 * work > 0.7 * ring);
  CHECK(four.comm_s == Approx(ring * 0.3));
}

TEST_CASE("Half precision uses the tensor-core peak", "[models][datasheet]") {
  JobSpec j = resnet_job(256);
  j.meta.precision = Precision::bf16;
  const StepBreakdown s = DatasheetPredictor().explain(j, gpu_preset("a800"));
  // The tensor class runs on the 312 TFLOP/s path (16x FP32) at half the FP32 path's efficiency: 8x faster.
  const StepBreakdown fp32 = DatasheetPredictor().explain(resnet_job(256), gpu_preset("a800"));
  const double tensor_fp32 = fp32.roofline.class_s[0], tensor_half = s.roofline.class_s[0];
  CHECK(tensor_half < tensor_fp32 / 4);
  CHECK(s.step_s < fp32.step_s);
}

TEST_CASE("Jobs that only name a class go to the table fallback", "[models][datasheet]") {
  JobSpec j;
  j.job_class = "vit";
  j.meta.dataset_samples = 1000;
  const DatasheetPredictor with(DatasheetParams{}, std::make_unique<FixedPredictor>());
  CHECK(with.predict(j, gpu_preset("a800")) == PhaseProfile{300, 100, 80, 10});
  CHECK_THROWS_AS(DatasheetPredictor().predict(j, gpu_preset("a800")), ConfigError);
  // Explicit phases win over everything.
  j.phases = PhaseProfile{1, 2, 3, 4};
  CHECK(with.predict(j, gpu_preset("a800")) == PhaseProfile{1, 2, 3, 4});
}

TEST_CASE("A job may give its own parameters and FLOPs", "[models][datasheet]") {
  JobSpec j;
  j.meta.params = 5e6;
  j.meta.flops_per_sample = 2e9;
  j.meta.batch_size = 64;
  j.meta.dataset_samples = 10000;
  const StepBreakdown s = DatasheetPredictor().explain(j, gpu_preset("v100"));
  CHECK(s.model.params == 5e6);
  CHECK(s.training_flops_per_sample == 6e9);
  j.meta.training_flops_per_sample = 2e9;  // frozen backbone: forward only
  CHECK(DatasheetPredictor().explain(j, gpu_preset("v100")).training_flops_per_sample == 2e9);
}

TEST_CASE("Impossible jobs are refused with a clear message", "[models][datasheet]") {
  const DatasheetPredictor p;
  JobSpec j = resnet_job(0);
  CHECK_THROWS_WITH(p.predict(j, gpu_preset("a800")), Catch::Contains("batch_size"));
  j = resnet_job(32);
  j.meta.dataset_samples = -5;
  CHECK_THROWS_WITH(p.predict(j, gpu_preset("a800")), Catch::Contains("dataset_samples"));
  j = resnet_job(32);
  j.meta.model = "resnet51";
  CHECK_THROWS_WITH(p.predict(j, gpu_preset("a800")),
                    Catch::Contains("unknown model 'resnet51'") && Catch::Contains("resnet50"));
  // GPT-2 medium training state alone is 16 B x 355 M = 5.7 GB; at batch 64 x 1024 tokens the activations
  // (1.16 G elements per sample, 4 B) need far more than an RTX 3070's 8 GiB.
  j = JobSpec{};
  j.meta.model = "gpt2-medium";
  j.meta.batch_size = 64;
  j.meta.dataset_samples = 1e6;
  CHECK_THROWS_WITH(p.predict(j, gpu_preset("rtx3070")),
                    Catch::Contains("GiB") && Catch::Contains("rtx3070"));
}

TEST_CASE("The energy band is the product of the calibrated time and power bands", "[models][datasheet]") {
  const DatasheetPredictor p;
  const JobSpec j = resnet_job(256);
  const PredictionBand b = p.band(j, gpu_preset("a800"));
  REQUIRE(b.level == Approx(0.8));
  // a800 has no measurements: the unseen-GPU band of CNNs, symmetric in log space.
  const double q = default_predictor_fit().band.time.at("unseen/cnn");
  CHECK(b.time_high == Approx(std::exp(q)));
  CHECK(b.time_low == Approx(std::exp(-q)));
  const UncertaintyBand u = p.uncertainty(j, gpu_preset("a800"));
  CHECK(u.low == Approx(1.0 - b.time_low * b.power_low));
  CHECK(u.high == Approx(b.time_high * b.power_high - 1.0));
  // A GPU in the fitting data gets its (narrower) seen band.
  CHECK(p.band(j, gpu_preset("a40")).time_high ==
        Approx(std::exp(default_predictor_fit().band.time.at("seen/cnn"))));
}

TEST_CASE("The component predictor times FLOPs at its assumed utilisation", "[models][component]") {
  // 1,281,167 samples x 3 x 8.18 GFLOP / (19.5 TFLOP/s x 0.35) per epoch on one A800;
  // power = 134 W + 266 W x 0.8 + 266 W x 0.67 x 0.15.
  const ComponentPredictor p;
  const PhaseProfile pr = p.predict(resnet_job(256), gpu_preset("a800"));
  CHECK(pr.peak_s == Approx(1281167.0 * resnet(50).training_flops() / (19.5e12 * 0.35)));
  CHECK(pr.peak_W == Approx(134 + 266 * 0.8 + 266 * 0.67 * 0.15));
}

TEST_CASE("A zoo model with its own FLOPs scales its activations with them", "[models][datasheet]") {
  // Half the FLOPs (e.g. a smaller image): half the activation elements.
  fleetwatt::jobs::ModelMetadata meta;
  meta.model = "resnet50";
  meta.flops_per_sample = resnet(50).forward_flops / 2;
  const ModelCount m = resolve_model(meta, {});
  CHECK(m.activation_elements == Approx(resnet(50).activation_elements / 2));
  CHECK(m.params == resnet(50).params);
  // The roofline's operator classes follow: half the FLOPs and activation bytes, the same weights.
  for (std::size_t c = 0; c < kOpClasses; ++c) {
    CHECK(m.ops[c].flops == Approx(resnet(50).ops[c].flops / 2));
    CHECK(m.ops[c].bytes == Approx(resnet(50).ops[c].bytes / 2));
    CHECK(m.ops[c].weight_bytes == resnet(50).ops[c].weight_bytes);
  }
}

TEST_CASE("Class jobs on the fallback get the default band on their power above idle",
          "[models][datasheet]") {
  // Fixed profile: 300 W for 100 s, 80 W for 10 s on an A800 (idle 62 W):
  // dynamic = 238 * 100 + 18 * 10 = 23,980 J of 30,800 J; band = 0.15 * 23980 / 30800.
  JobSpec j;
  j.job_class = "vit";
  const DatasheetPredictor with(DatasheetParams{}, std::make_unique<FixedPredictor>());
  CHECK(with.uncertainty(j, gpu_preset("a800")).low == Approx(0.15 * 23980.0 / 30800.0));
}

TEST_CASE("The band's high power stops at the power limit in force", "[models][datasheet][band]") {
  // Every group's power half-width set to ln 1.5: the calibrated high end is 1.5 x the predicted average.
  DatasheetParams wide;
  for (auto& [group, q] : wide.fit.band.power) q = std::log(1.5);
  REQUIRE(!wide.fit.band.power.empty());
  const DatasheetPredictor p(wide);
  // ResNet-50 at batch 256 on one A100 SXM4 80GB (TDP 400 W, its datasheet's): compute-bound, drawing close
  // to the TDP, so 1.5 x its average lies far above 400 W, which the board cannot exceed on average.
  const JobSpec job = resnet_job(256);
  const GpuHardware& a100 = gpu_preset("a100-sxm-80gb");
  REQUIRE(a100.tdp_W == 400.0);
  const double mean_W = p.predict(job, a100).mean_W();
  REQUIRE(1.5 * mean_W > 400.0);
  const PredictionBand b = p.band(job, a100);
  CHECK(mean_W * b.power_high == Approx(400.0));
  CHECK(mean_W * b.power_high <= 400.0);
  CHECK(b.power_low == Approx(1.0 / 1.5));  // the low end is left as calibrated
  // The energy band follows the clamped power: at most 400 W over the band's longest epoch.
  const UncertaintyBand u = p.uncertainty(job, a100);
  CHECK(u.high == Approx(b.time_high * b.power_high - 1.0));

  // A power limit below the TDP is the limit in force: 250 W.
  DatasheetParams capped = wide;
  capped.power_limit_W = 250.0;
  const DatasheetPredictor q(capped);
  const double capped_W = q.predict(job, a100).mean_W();
  REQUIRE(1.5 * capped_W > 250.0);
  CHECK(capped_W * q.band(job, a100).power_high == Approx(250.0));
  CHECK(capped_W * q.band(job, a100).power_high <= 250.0);

  // Far from the limit nothing changes: ShuffleNetV2 at batch 8 on an A40 (TDP 300 W) draws about 90 W
  // (Zeus), and 1.5 x 90 W is well under 300 W.
  JobSpec small;
  small.meta.model = "shufflenet_v2";
  small.meta.batch_size = 8;
  small.meta.input_size = 32;
  small.meta.dataset_samples = 50000;
  const double small_W = p.predict(small, gpu_preset("a40")).mean_W();
  REQUIRE(1.5 * small_W < 300.0);
  CHECK(p.band(small, gpu_preset("a40")).power_high == Approx(1.5));
}

TEST_CASE(
    "A Keras application given by its FLOPs draws as a CNN with the band of FLOPs-only work, a model of "
    "unknown kind as the median class",
    "[models][datasheet][power]") {
  // GAISSA names its models keras-<architecture> and gives their FLOPs; every model of keras.applications
  // is a convolutional network, so it saturates as the CNN class does. A model known by its FLOPs alone has
  // no class with runs in the fitting data: the median of the fitted classes' saturations (cnn,
  // transformer, mlp).
  CHECK(named_model_family("keras-vgg16") == ModelFamily::cnn);
  CHECK(named_model_family("keras-xception") == ModelFamily::cnn);
  CHECK(named_model_family("custom") == ModelFamily::other);
  CHECK(named_model_family("kerasnet") == ModelFamily::other);
  CHECK(power_class(ModelFamily::mlp) == PowerClass::mlp);
  CHECK(power_class(ModelFamily::recurrent) == PowerClass::other);
  CHECK(std::string(to_string(PowerClass::mlp)) == "mlp");
  // Its band is that of work stated without the model's layers, whatever the family.
  CHECK(band_class(ModelFamily::cnn, true) == PowerClass::other);
  CHECK(band_class(ModelFamily::cnn, false) == PowerClass::cnn);

  const auto& pc = default_predictor_fit().power;
  const auto sat = [&](PowerClass c) { return pc.saturation[static_cast<std::size_t>(c)]; };
  std::vector<double> fitted{sat(PowerClass::cnn), sat(PowerClass::transformer), sat(PowerClass::mlp)};
  std::sort(fitted.begin(), fitted.end());
  CHECK(sat(PowerClass::other) == fitted[1]);

  // VGG16 as GAISSA trained it (15.5 GFLOPs, 138.4 M parameters) on the A40, whose fitted saturation
  // factor multiplies the class's: the step's saturation draw is the CNN class's share of the 300 W TDP.
  const GpuHardware gpu = gpu_preset("a40");
  JobSpec j;
  j.meta.model = "keras-vgg16";
  j.meta.flops_per_sample = 15.5e9;
  j.meta.params = 138.4e6;
  j.meta.batch_size = 32;
  j.meta.dataset_samples = 23807;
  const double factor = pc.gpu_saturation.at("a40");
  const DatasheetPredictor p;
  CHECK(p.explain(j, gpu).roofline.saturation_W == Approx(sat(PowerClass::cnn) * factor * 300.0));
  j.meta.model = "my-model";
  CHECK(p.explain(j, gpu).roofline.saturation_W == Approx(sat(PowerClass::other) * factor * 300.0));

  // A GPU without power runs in the data takes the median of the fitted GPUs' factors, not 1.
  std::vector<double> factors;
  for (const auto& [id, f] : pc.gpu_saturation) factors.push_back(f);
  std::sort(factors.begin(), factors.end());
  const std::size_t n = factors.size();
  REQUIRE(n >= 3);
  const double median = n % 2 ? factors[n / 2] : std::sqrt(factors[n / 2 - 1] * factors[n / 2]);
  const GpuHardware a800 = gpu_preset("a800");
  REQUIRE(pc.gpu_saturation.count("a800") == 0);
  j.meta.model = "keras-vgg16";
  CHECK(p.explain(j, a800).roofline.saturation_W == Approx(sat(PowerClass::cnn) * median * a800.tdp_W));
}
