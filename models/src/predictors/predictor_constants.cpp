// The default predictor's constants (models/predictors/predictor_constants.hpp): reading and writing their
// TOML file, the built-in copy, and the calibrated band a prediction carries.
#include "fleetwatt/models/predictors/predictor_constants.hpp"

#include <fmt/format.h>

#include <array>

#include "embedded_predictor_fit.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/toml_table.hpp"

namespace fleetwatt::models {
namespace {

constexpr std::array<const char*, kOpClasses> kEtaKeys{"eta_tensor", "eta_vector", "eta_memory_class",
                                                       "eta_attention"};
constexpr std::array<const char*, 4> kStackKeys{"stack_eager", "stack_amp", "stack_compiled",
                                                "stack_optimized"};

// ---------------------------------------------------------------------------------------------------------
// File format

// Each figure's range follows from what it is (the comment above each read says why); a value outside is a
// located error at its key. Figures that divide a step's FLOPs or bytes (efficiencies, family factors) have
// a floor above 0: a subnormal efficiency made the step's time NaN.
void read_map(const core::TomlTable& t, const std::string& key, std::map<std::string, double>& out, double lo,
              double hi) {
  const auto sub = t.table(key);
  if (!sub) return;
  for (const auto& [k, v] : sub->raw()) {
    const auto d = v.value<double>();
    if (!d || !(*d > 0.0 && *d >= lo && *d <= hi))
      throw core::ConfigError(sub->where(std::string(k.str())), sub->dotted(std::string(k.str())),
                              fmt::format("must be a positive number from {} to {}", lo, hi));
    out[std::string(k.str())] = *d;
  }
}

double need(const core::TomlTable& t, const std::string& key, double lo, double hi) {
  if (!t.has(key)) throw core::ConfigError(t.where(), t.dotted(key), "missing");
  return *t.number_in(key, lo, hi);
}

std::string format_map(const std::string& header, const std::map<std::string, double>& m) {
  std::string out = fmt::format("\n[{}]\n", header);
  for (const auto& [k, v] : m) out += fmt::format("\"{}\" = {:.6g}\n", k, v);
  return out;
}

}  // namespace

PredictorFit parse_predictor_fit(std::string_view toml_text, const std::string& file) {
  const toml::table root = core::parse_toml(toml_text, file);
  const core::TomlTable top(root, "", file);
  top.require_known({"provenance", "time", "power", "band", "site", "workload_work"});
  PredictorFit fit;
  fit.provenance = top.string("provenance").value_or("");
  const auto time = top.table("time");
  const auto power = top.table("power");
  const auto band = top.table("band");
  if (!time || !power || !band)
    throw core::ConfigError(top.where(), "time", "a fit file needs [time], [power] and [band]");
  auto& tc = fit.time;
  // Achieved fractions of a peak (and the tensor path's relative to the FP32 path's): (0, 1], floored at
  // 1e-9 as they divide the FLOPs and bytes of a step.
  constexpr double kFraction = 1e-9;
  for (std::size_t c = 0; c < kOpClasses; ++c) tc.eta[c] = need(*time, kEtaKeys[c], kFraction, 1.0);
  tc.eta_memory = need(*time, "eta_memory", kFraction, 1.0);
  tc.half_tensor_factor = need(*time, "half_tensor_factor", kFraction, 1.0);
  // Seconds per kernel launch: microseconds in practice; a second per launch is already absurd.
  tc.kernel_launch_s = need(*time, "kernel_launch_s", 0.0, 1.0);
  // The optimiser step's bytes per parameter (16 for Adam in FP32) and kernels per tensor (3): counts of
  // a step's work, up to 1e3.
  tc.optimizer_bytes_per_param = need(*time, "optimizer_bytes_per_param", 0.0, 1e3);
  tc.optimizer_kernels_per_tensor = need(*time, "optimizer_kernels_per_tensor", 0.0, 1e3);
  // Multipliers of eager's memory traffic and launches: fusion removes work, never adds it.
  for (std::size_t s = 0; s < 4; ++s) tc.stack_factor[s] = need(*time, kStackKeys[s], 0.0, 1.0);
  // Host seconds per pixel-channel and per sample, and the end-of-epoch seconds: at most a second per
  // pixel, an hour per sample and a day per epoch's end.
  tc.data_s_per_pixel = need(*time, "data_s_per_pixel", 0.0, 1.0);
  tc.data_s_per_sample = time->number_in("data_s_per_sample", 0.0, 3600.0).value_or(0.0);
  tc.epoch_end_s = need(*time, "epoch_end_s", 0.0, 86400.0);
  // Factors of the pooled efficiencies, per architecture family (fitted near 1 under a ridge penalty).
  read_map(*time, "family_compute", tc.family_compute, 1e-3, 1e3);
  read_map(*time, "family_memory", tc.family_memory, 1e-3, 1e3);
  read_map(*time, "family_gemm", tc.family_gemm, 1e-3, 1e3);
  auto& pc = fit.power;
  // Floors and saturations are fractions of the TDP; the exponent of g(u) = u^gamma on u in [0, 1] is
  // positive (0^0 would draw saturation power at idle) and at most 10 (u^10 is already a step); the memory
  // weight is the share of a bandwidth-bound second counted toward u.
  pc.floor_hbm = need(*power, "floor_hbm", 0.0, 1.0);
  pc.floor_gddr = need(*power, "floor_gddr", 0.0, 1.0);
  for (std::size_t c = 0; c < kPowerClasses; ++c) {
    const std::string key = fmt::format("saturation_{}", to_string(static_cast<PowerClass>(c)));
    pc.saturation[c] = need(*power, key, 0.0, 1.0);
    if (!(pc.saturation[c] > 0.0)) power->fail(key, "must be positive (a fraction of the TDP)");
  }
  pc.exponent = need(*power, "exponent", 0.0, 10.0);
  if (!(pc.exponent > 0.0)) power->fail("exponent", "must be positive");
  pc.memory_weight = need(*power, "memory_weight", 0.0, 1.0);
  // Per-GPU floors in watts, up to 1e6 W as a GPU preset's figures; per-GPU saturation factors multiply the
  // class's fraction (fitted near 1), up to 10.
  read_map(*power, "gpu_floor_w", pc.gpu_floor_W, 0.0, 1e6);
  read_map(*power, "gpu_saturation", pc.gpu_saturation, 1e-3, 10.0);
  // A quantile level lies strictly between 0 and 1.
  fit.band.level = need(*band, "level", 0.0, 1.0);
  if (!(fit.band.level > 0.0 && fit.band.level < 1.0)) band->fail("level", "must lie in (0, 1)");
  if (const auto seen = band->strings("seen_gpus")) fit.band.seen_gpus = {seen->begin(), seen->end()};
  // Half-widths of |ln(measured / predicted)|: e^20 (a factor of 5e8) is past any band worth giving.
  read_map(*band, "time", fit.band.time, 0.0, 20.0);
  read_map(*band, "power", fit.band.power, 0.0, 20.0);
  if (const auto site = top.table("site")) {
    site->require_known({"time_repeat", "time_varied", "power_repeat", "power_varied", "time_band",
                         "power_band", "time_band_varied", "power_band_varied"});
    // Shrinkage weights lie in [0, 1] (0: the datasheet prediction, 1: the measured factor); band
    // half-widths as [band]'s.
    auto& w = fit.site;
    w.time_repeat = need(*site, "time_repeat", 0.0, 1.0);
    w.time_varied = need(*site, "time_varied", 0.0, 1.0);
    w.power_repeat = need(*site, "power_repeat", 0.0, 1.0);
    w.power_varied = need(*site, "power_varied", 0.0, 1.0);
    w.time_band = need(*site, "time_band", 0.0, 20.0);
    w.power_band = need(*site, "power_band", 0.0, 20.0);
    // Optional (absent: as wide as the pooled band); never narrower than it.
    w.time_band_varied =
        site->has("time_band_varied") ? need(*site, "time_band_varied", w.time_band, 20.0) : w.time_band;
    w.power_band_varied =
        site->has("power_band_varied") ? need(*site, "power_band_varied", w.power_band, 20.0) : w.power_band;
  }
  // Per-sample work factors of the fitting data's workloads.
  read_map(top, "workload_work", fit.workload_work, 1e-6, 1e6);
  return fit;
}

std::string format_predictor_fit(const PredictorFit& fit) {
  std::string out =
      "# The default predictor's fitted constants (models/fit/predictor_fit.hpp). Generated: do not edit; "
      "run\n"
      "# tools/scripts/fit-predictor.sh (fleetwatt validate ../shared/data --fit -o <this file>).\n";
  out += fmt::format("provenance = \"{}\"\n\n[time]\n", fit.provenance);
  const auto& tc = fit.time;
  for (std::size_t c = 0; c < kOpClasses; ++c) out += fmt::format("{} = {:.6g}\n", kEtaKeys[c], tc.eta[c]);
  out += fmt::format("eta_memory = {:.6g}\nhalf_tensor_factor = {:.6g}\nkernel_launch_s = {:.6g}\n",
                     tc.eta_memory, tc.half_tensor_factor, tc.kernel_launch_s);
  out += fmt::format("optimizer_bytes_per_param = {:.6g}\noptimizer_kernels_per_tensor = {:.6g}\n",
                     tc.optimizer_bytes_per_param, tc.optimizer_kernels_per_tensor);
  for (std::size_t s = 0; s < 4; ++s) out += fmt::format("{} = {:.6g}\n", kStackKeys[s], tc.stack_factor[s]);
  out += fmt::format("data_s_per_pixel = {:.6g}\ndata_s_per_sample = {:.6g}\nepoch_end_s = {:.6g}\n",
                     tc.data_s_per_pixel, tc.data_s_per_sample, tc.epoch_end_s);
  out += format_map("time.family_compute", tc.family_compute);
  out += format_map("time.family_memory", tc.family_memory);
  out += format_map("time.family_gemm", tc.family_gemm);
  const auto& pc = fit.power;
  out += fmt::format("\n[power]\nfloor_hbm = {:.6g}\nfloor_gddr = {:.6g}\n", pc.floor_hbm, pc.floor_gddr);
  for (std::size_t c = 0; c < kPowerClasses; ++c)
    out += fmt::format("saturation_{} = {:.6g}\n", to_string(static_cast<PowerClass>(c)), pc.saturation[c]);
  out += fmt::format("exponent = {:.6g}\nmemory_weight = {:.6g}\n", pc.exponent, pc.memory_weight);
  out += format_map("power.gpu_floor_w", pc.gpu_floor_W);
  out += format_map("power.gpu_saturation", pc.gpu_saturation);
  out += fmt::format("\n[band]\nlevel = {:.6g}\nseen_gpus = [", fit.band.level);
  bool first = true;
  for (const auto& g : fit.band.seen_gpus)
    out += fmt::format("{}\"{}\"", first ? "" : ", ", g), first = false;
  out += "]\n";
  out += format_map("band.time", fit.band.time);
  out += format_map("band.power", fit.band.power);
  const auto& w = fit.site;
  out += fmt::format(
      "\n# A site's measured runs: shrinkage of their factors (repeat: a job at a run's batch and power "
      "limit)\n# and the corrected predictions' band half-widths (few-shot calibration, one run per group).\n"
      "[site]\ntime_repeat = {:.6g}\ntime_varied = {:.6g}\npower_repeat = {:.6g}\npower_varied = {:.6g}\n"
      "time_band = {:.6g}\npower_band = {:.6g}\ntime_band_varied = {:.6g}\npower_band_varied = {:.6g}\n",
      w.time_repeat, w.time_varied, w.power_repeat, w.power_varied, w.time_band, w.power_band,
      w.time_band_varied, w.power_band_varied);
  if (!fit.workload_work.empty()) {
    out +=
        "\n# Nuisance constants of the fitting data (not used for jobs): per-sample work x the stated FLOPs "
        "of\n"
        "# workloads whose source quotes FLOPs at an input size it does not give.";
    out += format_map("workload_work", fit.workload_work);
  }
  return out;
}

const PredictorFit& default_predictor_fit() {
  static const PredictorFit fit = parse_predictor_fit(detail::kEmbeddedPredictorFit, "predictor_fit.toml");
  return fit;
}

std::string band_group(bool seen, PowerClass c) {
  return fmt::format("{}/{}", seen ? "seen" : "unseen", to_string(c));
}

PredictionBand prediction_band(const PredictorFit& fit, const GpuHardware& gpu, PowerClass c,
                               bool in_fitted_domain) {
  const bool seen = in_fitted_domain && fit.band.seen_gpus.count(gpu.id) > 0;
  const std::string group = band_group(seen, c);
  // A group without residuals (no such workload in the data) takes the widest band of its kind.
  const auto half_width = [&](const std::map<std::string, double>& m) {
    const auto it = m.find(group);
    if (it != m.end()) return it->second;
    double widest = 0.0;
    for (const auto& [k, v] : m) widest = std::max(widest, v);
    return widest;
  };
  const double qt = half_width(fit.band.time), qp = half_width(fit.band.power);
  if (qt <= 0.0 && qp <= 0.0) return {};
  return {fit.band.level, std::exp(-qt), std::exp(qt), std::exp(-qp), std::exp(qp)};
}

}  // namespace fleetwatt::models
