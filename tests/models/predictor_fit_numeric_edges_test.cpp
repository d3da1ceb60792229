// The predictor fit file (`fleetwatt validate --fit` writes it, the built-in constants are one) with each
// numeric key, and one entry of each per-family, per-GPU, band and workload table, at ±1e300, NaN, ±inf,
// 2^63, 2^64, 2^32 and a subnormal (numeric_edges.hpp): a located error (file, line, key) or constants under
// which the roofline's step time and power, and the band, are finite.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fleetwatt/models/hardware/gpu_hardware.hpp"
#include "fleetwatt/models/hardware/roofline.hpp"
#include "fleetwatt/models/predictors/predictor_constants.hpp"
#include "numeric_edges.hpp"

using namespace fleetwatt;

namespace {

struct Key {
  std::string section;  ///< the table the key is written under
  std::string key;      ///< as written (quoted for a table entry)
  std::string good;
  std::string field;  ///< the dotted name an error gives
};

// A hand-made CNN of a step's every operator class, on an A40 whose floor comes from the fit.
models::ModelCount test_model() {
  models::ModelCount m;
  m.family = models::ModelFamily::cnn;
  m.params = 1e6;
  m.param_tensors = 10;
  m.forward_flops = 1.01e9;
  m.ops[0] = {1e9, 1e6, 4e6, 10};
  m.ops[1] = {1e7, 4e6, 0, 5};
  m.ops[2] = {1e6, 8e6, 0, 20};
  m.ops[3] = {1e8, 1e6, 0, 4};
  return m;
}

// Steps under the fit, on the FP32 eager path and on the FP16 compiled one (half_tensor_factor, a stack
// factor) with image loading: finite, positive times and powers, and a finite band.
void check_predicts(const models::PredictorFit& fit, const models::GpuHardware& gpu) {
  for (const bool half : {false, true}) {
    models::StepInputs in;
    in.per_gpu_batch = 32;
    if (half) {
      in.precision = jobs::Precision::fp16;
      in.stack = jobs::SoftwareStack::compiled;
      in.pixels_per_sample = 3 * 224 * 224;
    }
    const auto s = models::roofline_step(test_model(), in, gpu, fit.time, fit.power);
    CAPTURE(half, s.step_s, s.power_W);
    CHECK(std::isfinite(s.step_s));
    CHECK(s.step_s > 0.0);
    CHECK(std::isfinite(s.power_W));
    CHECK(s.power_W > 0.0);
  }
  const auto band = models::prediction_band(fit, gpu, models::PowerClass::cnn, true);
  for (const double v : {band.level, band.time_low, band.time_high, band.power_low, band.power_high})
    CHECK(std::isfinite(v));
}

}  // namespace

TEST_CASE("every numeric key of a predictor fit file at the numeric edges is located or finite",
          "[models][predictor-fit][bad-input][edges]") {
  // Ranges (predictor_constants.cpp says why): efficiencies and half_tensor_factor in [1e-9, 1]; stack
  // factors, floors, memory_weight in [0, 1]; saturations in (0, 1]; exponent in (0, 10]; kernel_launch_s
  // and data_s_per_pixel in [0, 1] s; data_s_per_sample in [0, 3600] s; epoch_end_s in [0, 86400] s;
  // optimizer figures in [0, 1e3]; family factors in [1e-3, 1e3]; GPU floors in (0, 1e6] W; GPU saturation
  // factors in [1e-3, 10]; band level in (0, 1), half-widths in (0, 20]; workload work in [1e-6, 1e6].
  models::GpuHardware gpu = models::gpu_preset("a40");
  gpu.resident_W = 0.0;  // the floor comes from power.gpu_floor_w
  const std::string family = models::arch_family(gpu);
  const std::string fam = "\"" + family + "\"";
  const std::vector<Key> keys = {
      {"time", "eta_tensor", "0.5", "time.eta_tensor"},
      {"time", "eta_vector", "0.9", "time.eta_vector"},
      {"time", "eta_memory_class", "0.3", "time.eta_memory_class"},
      {"time", "eta_attention", "0.25", "time.eta_attention"},
      {"time", "eta_memory", "0.6", "time.eta_memory"},
      {"time", "half_tensor_factor", "0.4", "time.half_tensor_factor"},
      {"time", "kernel_launch_s", "4.7e-05", "time.kernel_launch_s"},
      {"time", "optimizer_bytes_per_param", "16", "time.optimizer_bytes_per_param"},
      {"time", "optimizer_kernels_per_tensor", "3", "time.optimizer_kernels_per_tensor"},
      {"time", "stack_eager", "1", "time.stack_eager"},
      {"time", "stack_amp", "1", "time.stack_amp"},
      {"time", "stack_compiled", "0.6", "time.stack_compiled"},
      {"time", "stack_optimized", "0.4", "time.stack_optimized"},
      {"time", "data_s_per_pixel", "7.2e-13", "time.data_s_per_pixel"},
      {"time", "data_s_per_sample", "1e-05", "time.data_s_per_sample"},
      {"time", "epoch_end_s", "4.3", "time.epoch_end_s"},
      {"time.family_compute", fam, "1.2", "time.family_compute." + family},
      {"time.family_memory", fam, "0.95", "time.family_memory." + family},
      {"time.family_gemm", fam, "1.1", "time.family_gemm." + family},
      {"power", "floor_hbm", "0.13", "power.floor_hbm"},
      {"power", "floor_gddr", "0.25", "power.floor_gddr"},
      {"power", "saturation_cnn", "1", "power.saturation_cnn"},
      {"power", "saturation_transformer", "0.82", "power.saturation_transformer"},
      {"power", "saturation_mlp", "0.3", "power.saturation_mlp"},
      {"power", "saturation_other", "0.62", "power.saturation_other"},
      {"power", "exponent", "0.73", "power.exponent"},
      {"power", "memory_weight", "1", "power.memory_weight"},
      {"power.gpu_floor_w", "\"a40\"", "74", "power.gpu_floor_w.a40"},
      {"power.gpu_saturation", "\"a40\"", "0.95", "power.gpu_saturation.a40"},
      {"band", "level", "0.8", "band.level"},
      {"band.time", "\"seen/cnn\"", "0.31", "band.time.seen/cnn"},
      {"band.power", "\"seen/cnn\"", "0.18", "band.power.seen/cnn"},
      {"workload_work", "\"keras-vgg16\"", "0.52", "workload_work.keras-vgg16"},
  };
  // The file with key k at `value` (every other key at its good value), and each key's line.
  std::vector<unsigned> lines(keys.size());
  const auto text = [&](std::size_t k, const std::string& value) {
    std::string out = "provenance = \"numeric edges\"\n";
    unsigned line = 1;
    std::string section;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].section != section) {
        section = keys[i].section;
        out += "[" + section + "]\n";
        ++line;
        if (section == "band") out += "seen_gpus = [\"a40\"]\n", ++line;
      }
      out += keys[i].key + " = " + (i == k ? value : keys[i].good) + "\n";
      lines[i] = ++line;
    }
    return out;
  };
  {
    INFO("as written");
    const auto fit = models::parse_predictor_fit(text(keys.size(), ""), "fit.toml");
    CHECK(fit.band.seen_gpus.count("a40") == 1);
    CHECK(fit.power.gpu_floor_W.at("a40") == 74.0);
    check_predicts(fit, gpu);
  }
  for (std::size_t k = 0; k < keys.size(); ++k) {
    for (const auto& value : test::numeric_edges()) {
      INFO(keys[k].field << " = " << value);
      models::PredictorFit fit;
      const auto error =
          test::input_error_of([&] { fit = models::parse_predictor_fit(text(k, value), "fit.toml"); });
      if (error) {
        if (test::beyond_64_bits(value))
          CHECK(error->rfind("fit.toml:" + std::to_string(lines[k]) + ":", 0) == 0);
        else
          test::check_located(*error, "fit.toml", lines[k], keys[k].field);
        continue;
      }
      check_predicts(fit, gpu);
    }
  }
}
